/* The lines of a JSON Lines buffer grouped by payload, with no Python object per line.
 *
 * group_payloads(buffer, final, limit, tool_key, arguments_key, excluded)
 *     -> (ids, tools, texts, alone)
 *
 * ``buffer`` holds whole lines (with ``final``, its last line may lack its newline). Each
 * line gets one uint32 in ``ids``: BLANK (0xffffffff) for a line of whitespace only, ALONE
 * (0xfffffffe) for a line this scan does not vouch for (its bytes, newline included, are
 * the next item of ``alone``), else the index of its group in ``tools`` and ``texts``, the
 * decoded strings of the line's top-level ``tool_key`` and ``arguments_key`` members.
 * Groups are numbered in the order of their first line.
 *
 * A line is vouched for (grouped) when it is at most ``limit`` bytes long (newline not
 * counted), is one JSON object (strict syntax and UTF-8, nesting at most MAX_DEPTH), holds
 * no ``\ud800``-style escape of a surrogate, no run of 19 digits and no digit followed by an
 * exponent of 3 digits anywhere (the raw rules: what a JSON reader may read otherwise, as a
 * float or an error), and whose last top-level ``tool_key`` member is a non-empty string,
 * whose last ``arguments_key`` member is a string, and that has no member named in
 * ``excluded``. ``auditor.inputs.payload_groups.python_group_payloads`` is the same
 * function in Python; the tests hold the two to the same output. */
#define PY_SSIZE_T_CLEAN
#include <Python.h>
#include <stdint.h>
#include <string.h>

#define BLANK 0xffffffffu
#define ALONE 0xfffffffeu
#define MAX_DEPTH 64
#define MAX_KEY 384 /* raw bytes of an escaped top-level key decoded to compare it to the names */

/* --- hashing ---------------------------------------------------------------------------- */

static inline uint64_t mix(uint64_t h) {
    h ^= h >> 33;
    h *= 0xff51afd7ed558ccdULL;
    h ^= h >> 33;
    h *= 0xc4ceb9fe1a85ec53ULL;
    h ^= h >> 33;
    return h;
}

static uint64_t hash_bytes(const unsigned char *p, Py_ssize_t n, uint64_t seed) {
    uint64_t h = seed ^ 0x9e3779b97f4a7c15ULL ^ (uint64_t)n;
    while (n >= 8) {
        uint64_t w;
        memcpy(&w, p, 8);
        h = (h ^ mix(w)) * 0x100000001b3ULL;
        h = (h << 31) | (h >> 33);
        p += 8;
        n -= 8;
    }
    uint64_t w = 0;
    memcpy(&w, p, (size_t)n);
    return mix(h ^ mix(w + (uint64_t)n));
}

/* --- the raw rules ---------------------------------------------------------------------- */

static int is_digit(unsigned char c) { return c >= '0' && c <= '9'; }

static int is_hex(unsigned char c) {
    return is_digit(c) || (c >= 'a' && c <= 'f') || (c >= 'A' && c <= 'F');
}

/* What the regex ``\\u[dD][89a-fA-F]|[0-9]{19}|[0-9][eE][+-]?[0-9]{3}`` finds somewhere in
 * the line (the Python side searches with that very pattern). */
static int raw_refused(const unsigned char *p, Py_ssize_t n) {
    Py_ssize_t run = 0;
    for (Py_ssize_t i = 0; i < n; i++) {
        unsigned char c = p[i];
        if (is_digit(c)) {
            if (++run >= 19) return 1;
            if (i + 1 < n && (p[i + 1] == 'e' || p[i + 1] == 'E')) {
                Py_ssize_t j = i + 2;
                if (j < n && (p[j] == '+' || p[j] == '-')) j++;
                if (j + 2 < n && is_digit(p[j]) && is_digit(p[j + 1]) && is_digit(p[j + 2]))
                    return 1;
            }
            continue;
        }
        run = 0;
        if (c == '\\' && i + 3 < n && p[i + 1] == 'u' && (p[i + 2] == 'd' || p[i + 2] == 'D')) {
            unsigned char d = p[i + 3];
            if (d == '8' || d == '9' || (d >= 'a' && d <= 'f') || (d >= 'A' && d <= 'F'))
                return 1;
        }
    }
    return 0;
}

/* --- the strict scan -------------------------------------------------------------------- */

typedef struct {
    const unsigned char *p, *end;
    int depth;
} Scan;

/* Skips JSON whitespace; whether anything is left. */
static int ws(Scan *s) {
    while (s->p < s->end && (*s->p == ' ' || *s->p == '\t' || *s->p == '\n' || *s->p == '\r'))
        s->p++;
    return s->p < s->end;
}

/* Checks the string at s->p (on its quote) and moves past it; *escaped: it held a backslash.
 * Escapes of surrogates never get here (the raw rules refuse their lines). */
static int string(Scan *s, int *escaped) {
    const unsigned char *p = s->p + 1, *end = s->end;
    *escaped = 0;
    while (p < end) {
        unsigned char c = *p;
        if (c == '"') {
            s->p = p + 1;
            return 1;
        }
        if (c < 0x20) return 0;
        if (c == '\\') {
            *escaped = 1;
            if (++p >= end) return 0;
            c = *p;
            if (c == 'u') {
                if (end - p < 5) return 0;
                for (int i = 1; i <= 4; i++)
                    if (!is_hex(p[i])) return 0;
                p += 5;
                continue;
            }
            if (c != '"' && c != '\\' && c != '/' && c != 'b' && c != 'f' && c != 'n' &&
                c != 'r' && c != 't')
                return 0;
            p++;
            continue;
        }
        if (c < 0x80) {
            p++;
            continue;
        }
        /* UTF-8 as Python decodes it: no overlongs, no surrogates, nothing past U+10FFFF */
        int n;
        unsigned int cp;
        if (c >= 0xc2 && c <= 0xdf) {
            n = 1;
            cp = c & 0x1f;
        } else if (c >= 0xe0 && c <= 0xef) {
            n = 2;
            cp = c & 0x0f;
        } else if (c >= 0xf0 && c <= 0xf4) {
            n = 3;
            cp = c & 0x07;
        } else
            return 0;
        if (end - p <= n) return 0;
        for (int i = 1; i <= n; i++) {
            if ((p[i] & 0xc0) != 0x80) return 0;
            cp = (cp << 6) | (p[i] & 0x3f);
        }
        if (n == 2 && (cp < 0x800 || (cp >= 0xd800 && cp <= 0xdfff))) return 0;
        if (n == 3 && (cp < 0x10000 || cp > 0x10ffff)) return 0;
        p += n + 1;
    }
    return 0;
}

/* JSON's number grammar: -?(0|[1-9][0-9]*)(\.[0-9]+)?([eE][+-]?[0-9]+)? */
static int number(Scan *s) {
    const unsigned char *p = s->p, *end = s->end, *digits;
    if (p < end && *p == '-') p++;
    digits = p;
    if (p < end && *p == '0')
        p++;
    else
        while (p < end && is_digit(*p)) p++;
    if (p == digits) return 0;
    if (p < end && *p == '.') {
        digits = ++p;
        while (p < end && is_digit(*p)) p++;
        if (p == digits) return 0;
    }
    if (p < end && (*p == 'e' || *p == 'E')) {
        p++;
        if (p < end && (*p == '+' || *p == '-')) p++;
        digits = p;
        while (p < end && is_digit(*p)) p++;
        if (p == digits) return 0;
    }
    s->p = p;
    return 1;
}

static int literal(Scan *s, const char *word, size_t n) {
    if ((size_t)(s->end - s->p) < n || memcmp(s->p, word, n)) return 0;
    s->p += n;
    return 1;
}

static int value(Scan *s);

/* The array or object at s->p, one level deeper than its holder. */
static int container(Scan *s) {
    unsigned char close = *s->p == '{' ? '}' : ']';
    int object = close == '}', escaped;
    if (++s->depth > MAX_DEPTH) return 0;
    s->p++;
    if (!ws(s)) return 0;
    if (*s->p == close) {
        s->p++;
        s->depth--;
        return 1;
    }
    for (;;) {
        if (object) {
            if (!ws(s) || *s->p != '"' || !string(s, &escaped)) return 0;
            if (!ws(s) || *s->p != ':') return 0;
            s->p++;
        }
        if (!value(s) || !ws(s)) return 0;
        if (*s->p == ',') {
            s->p++;
            continue;
        }
        if (*s->p != close) return 0;
        s->p++;
        s->depth--;
        return 1;
    }
}

static int value(Scan *s) {
    int escaped;
    if (!ws(s)) return 0;
    switch (*s->p) {
    case '"':
        return string(s, &escaped);
    case '{':
    case '[':
        return container(s);
    case 't':
        return literal(s, "true", 4);
    case 'f':
        return literal(s, "false", 5);
    case 'n':
        return literal(s, "null", 4);
    default:
        return number(s);
    }
}

/* --- decoding a checked string ---------------------------------------------------------- */

static void put_utf8(unsigned char **out, unsigned int cp) {
    unsigned char *o = *out;
    if (cp < 0x80)
        *o++ = (unsigned char)cp;
    else if (cp < 0x800) {
        *o++ = (unsigned char)(0xc0 | (cp >> 6));
        *o++ = (unsigned char)(0x80 | (cp & 0x3f));
    } else {
        *o++ = (unsigned char)(0xe0 | (cp >> 12));
        *o++ = (unsigned char)(0x80 | ((cp >> 6) & 0x3f));
        *o++ = (unsigned char)(0x80 | (cp & 0x3f));
    }
    *out = o;
}

static unsigned int hex4(const unsigned char *p) {
    unsigned int v = 0;
    for (int i = 0; i < 4; i++) {
        unsigned char c = p[i];
        v = v * 16 + (is_digit(c) ? (unsigned int)(c - '0') : (unsigned int)((c | 0x20) - 'a' + 10));
    }
    return v;
}

/* The UTF-8 of the checked string [p, stop) (quotes excluded), written at out, which has
 * room for stop - p bytes: no escape decodes to more bytes than it takes. Its length. */
static Py_ssize_t decode(const unsigned char *p, const unsigned char *stop, unsigned char *out) {
    unsigned char *o = out;
    while (p < stop) {
        unsigned char c = *p;
        if (c != '\\') {
            *o++ = c;
            p++;
            continue;
        }
        c = p[1];
        p += 2;
        switch (c) {
        case 'b': *o++ = '\b'; break;
        case 'f': *o++ = '\f'; break;
        case 'n': *o++ = '\n'; break;
        case 'r': *o++ = '\r'; break;
        case 't': *o++ = '\t'; break;
        case 'u':
            put_utf8(&o, hex4(p));
            p += 4;
            break;
        default: *o++ = c; /* " \ / */
        }
    }
    return o - out;
}

/* --- one line --------------------------------------------------------------------------- */

typedef struct {
    const char *name;
    Py_ssize_t size;
} Name;

typedef struct {
    Name tool, arguments;
    Name *excluded;
    Py_ssize_t n_excluded;
} Names;

static int same_name(const unsigned char *key, Py_ssize_t size, const Name *name) {
    return size == name->size && memcmp(key, name->name, (size_t)size) == 0;
}

/* The spans (inside the quotes) of the line's tool and arguments strings when the line is
 * vouched for; 0 otherwise. */
static int vouched(const unsigned char *line, Py_ssize_t len, const Names *names,
                   const unsigned char *span[4]) {
    Scan s = {line, line + len, 1};
    int escaped;
    const unsigned char *tool = NULL, *tool_end = NULL, *args = NULL, *args_end = NULL;
    int tool_is_string = 0, args_is_string = 0;
    if (raw_refused(line, len)) return 0;
    if (!ws(&s) || *s.p != '{') return 0;
    s.p++;
    if (!ws(&s)) return 0;
    if (*s.p == '}') return 0; /* no tool */
    for (;;) {
        if (!ws(&s) || *s.p != '"') return 0;
        const unsigned char *key = s.p + 1;
        if (!string(&s, &escaped)) return 0;
        const unsigned char *key_end = s.p - 1;
        unsigned char decoded[MAX_KEY];
        Py_ssize_t key_size = key_end - key;
        const unsigned char *name = key;
        if (escaped) {
            /* no name compared here has more than MAX_KEY / 6 characters */
            key_size = key_size > MAX_KEY ? -1 : decode(key, key_end, decoded);
            name = decoded;
        }
        if (!ws(&s) || *s.p != ':') return 0;
        s.p++;
        if (!ws(&s)) return 0;
        const unsigned char *start = s.p;
        if (!value(&s)) return 0;
        if (key_size >= 0) {
            if (same_name(name, key_size, &names->tool)) {
                tool_is_string = *start == '"';
                tool = start + 1;
                tool_end = s.p - 1;
            } else if (same_name(name, key_size, &names->arguments)) {
                args_is_string = *start == '"';
                args = start + 1;
                args_end = s.p - 1;
            } else {
                for (Py_ssize_t i = 0; i < names->n_excluded; i++)
                    if (same_name(name, key_size, &names->excluded[i])) return 0;
            }
        }
        if (!ws(&s)) return 0;
        if (*s.p == ',') {
            s.p++;
            continue;
        }
        if (*s.p != '}') return 0;
        s.p++;
        break;
    }
    if (ws(&s)) return 0; /* text after the object */
    if (!tool || !tool_is_string || tool_end == tool || !args || !args_is_string) return 0;
    span[0] = tool;
    span[1] = tool_end;
    span[2] = args;
    span[3] = args_end;
    return 1;
}

static int blank_line(const unsigned char *p, Py_ssize_t n) {
    for (Py_ssize_t i = 0; i < n; i++) {
        unsigned char c = p[i];
        if (c != ' ' && c != '\t' && c != '\n' && c != '\r' && c != '\x0b' && c != '\x0c')
            return 0;
    }
    return 1;
}

/* --- the grouping ----------------------------------------------------------------------- */

typedef struct {
    Py_ssize_t key;  /* offset of the decoded tool then arguments in the arena */
    Py_ssize_t tool; /* bytes of the tool */
    Py_ssize_t args; /* bytes of the arguments */
    uint64_t hash;
} Group;

typedef struct {
    uint64_t *index; /* hash's high 32 bits << 32 | group + 1; 0: empty */
    Py_ssize_t capacity;
    Group *groups;
    Py_ssize_t n_groups, groups_cap;
    unsigned char *arena;
    Py_ssize_t arena_used, arena_cap;
    uint32_t *ids;
    Py_ssize_t n_ids, ids_cap;
} Table;

static void table_free(Table *t) {
    PyMem_Free(t->index);
    PyMem_Free(t->groups);
    PyMem_Free(t->arena);
    PyMem_Free(t->ids);
}

static int grow(void **block, Py_ssize_t *cap, Py_ssize_t need, size_t item) {
    if (need <= *cap) return 1;
    Py_ssize_t bigger = *cap ? *cap : 1024;
    while (bigger < need) bigger *= 2;
    void *moved = PyMem_Realloc(*block, item * (size_t)bigger);
    if (!moved) return 0;
    *block = moved;
    *cap = bigger;
    return 1;
}

static int add_id(Table *t, uint32_t id) {
    if (!grow((void **)&t->ids, &t->ids_cap, t->n_ids + 1, sizeof(uint32_t))) return 0;
    t->ids[t->n_ids++] = id;
    return 1;
}

static int rehash(Table *t) {
    Py_ssize_t capacity = t->capacity ? t->capacity * 2 : 4096;
    uint64_t *index = PyMem_Calloc((size_t)capacity, sizeof(uint64_t));
    if (!index) return 0;
    for (Py_ssize_t g = 0; g < t->n_groups; g++) {
        uint64_t h = t->groups[g].hash;
        Py_ssize_t j = (Py_ssize_t)(h & (uint64_t)(capacity - 1));
        while (index[j]) j = (j + 1) & (capacity - 1);
        index[j] = ((h >> 32) << 32) | (uint64_t)(g + 1);
    }
    PyMem_Free(t->index);
    t->index = index;
    t->capacity = capacity;
    return 1;
}

/* The group of the decoded payload at the arena's end (tool bytes, then args bytes): an
 * existing one (the arena's end is let go) or a new one; -1 when out of memory. */
static Py_ssize_t group_of(Table *t, Py_ssize_t tool, Py_ssize_t args) {
    const unsigned char *key = t->arena + t->arena_used;
    uint64_t h = hash_bytes(key, tool, 0) * 31 + hash_bytes(key + tool, args, 1);
    if ((t->n_groups + 1) * 2 > t->capacity && !rehash(t)) return -1;
    uint64_t tag = h >> 32;
    Py_ssize_t j = (Py_ssize_t)(h & (uint64_t)(t->capacity - 1));
    for (;;) {
        uint64_t entry = t->index[j];
        if (!entry) break;
        if ((entry >> 32) == tag) {
            Py_ssize_t g = (Py_ssize_t)(entry & 0xffffffffu) - 1;
            Group *found = &t->groups[g];
            if (found->tool == tool && found->args == args &&
                memcmp(t->arena + found->key, key, (size_t)(tool + args)) == 0)
                return g;
        }
        j = (j + 1) & (t->capacity - 1);
    }
    if (!grow((void **)&t->groups, &t->groups_cap, t->n_groups + 1, sizeof(Group))) return -1;
    Group *made = &t->groups[t->n_groups];
    made->key = t->arena_used;
    made->tool = tool;
    made->args = args;
    made->hash = h;
    t->arena_used += tool + args;
    t->index[j] = (tag << 32) | (uint64_t)(t->n_groups + 1);
    return t->n_groups++;
}

static int names_from(PyObject *tool_key, PyObject *arguments_key, PyObject *excluded,
                      Names *names) {
    Py_ssize_t size;
    names->excluded = NULL;
    names->tool.name = PyUnicode_AsUTF8AndSize(tool_key, &size);
    if (!names->tool.name) return 0;
    names->tool.size = size;
    names->arguments.name = PyUnicode_AsUTF8AndSize(arguments_key, &size);
    if (!names->arguments.name) return 0;
    names->arguments.size = size;
    names->n_excluded = PyTuple_GET_SIZE(excluded);
    names->excluded = PyMem_Malloc(sizeof(Name) * (size_t)(names->n_excluded + 1));
    if (!names->excluded) {
        PyErr_NoMemory();
        return 0;
    }
    for (Py_ssize_t i = 0; i < names->n_excluded; i++) {
        PyObject *item = PyTuple_GET_ITEM(excluded, i);
        if (!PyUnicode_Check(item)) {
            PyErr_SetString(PyExc_TypeError, "excluded names must be str");
            return 0;
        }
        names->excluded[i].name = PyUnicode_AsUTF8AndSize(item, &size);
        if (!names->excluded[i].name) return 0;
        names->excluded[i].size = size;
    }
    return 1;
}

static PyObject *group_payloads(PyObject *self, PyObject *args) {
    (void)self;
    Py_buffer view;
    int final;
    Py_ssize_t limit;
    PyObject *tool_key, *arguments_key, *excluded;
    if (!PyArg_ParseTuple(args, "y*pnUUO!", &view, &final, &limit, &tool_key, &arguments_key,
                          &PyTuple_Type, &excluded))
        return NULL;
    Names names;
    Table t;
    memset(&t, 0, sizeof t);
    PyObject *alone = NULL, *tools = NULL, *texts = NULL, *ids = NULL, *result = NULL;
    if (!names_from(tool_key, arguments_key, excluded, &names)) goto done;
    alone = PyList_New(0);
    if (!alone) goto done;
    const unsigned char *data = view.buf;
    Py_ssize_t size = view.len, pos = 0;
    if (size && data[size - 1] != '\n' && !final) {
        PyErr_SetString(PyExc_ValueError, "a buffer that is not final must end with a newline");
        goto done;
    }
    /* Decoded payloads take at most the bytes of their lines. */
    if (!grow((void **)&t.arena, &t.arena_cap, size + 1, 1)) goto nomem;
    while (pos < size) {
        const unsigned char *nl = memchr(data + pos, '\n', (size_t)(size - pos));
        Py_ssize_t end = nl ? nl - data : size, next = nl ? end + 1 : size;
        Py_ssize_t len = end - pos;
        uint32_t id;
        const unsigned char *span[4];
        if (blank_line(data + pos, next - pos))
            id = BLANK;
        else if (len <= limit && vouched(data + pos, len, &names, span)) {
            /* a new group's payload takes no more than its line: the arena holds them all */
            unsigned char *out = t.arena + t.arena_used;
            Py_ssize_t tool = decode(span[0], span[1], out);
            Py_ssize_t text = decode(span[2], span[3], out + tool);
            Py_ssize_t g = group_of(&t, tool, text);
            if (g < 0) goto nomem;
            id = (uint32_t)g;
        } else {
            PyObject *line = PyBytes_FromStringAndSize((const char *)data + pos, next - pos);
            if (!line || PyList_Append(alone, line) < 0) {
                Py_XDECREF(line);
                goto done;
            }
            Py_DECREF(line);
            id = ALONE;
        }
        if (!add_id(&t, id)) goto nomem;
        pos = next;
    }
    tools = PyList_New(t.n_groups);
    texts = PyList_New(t.n_groups);
    ids = PyBytes_FromStringAndSize((const char *)t.ids, (Py_ssize_t)sizeof(uint32_t) * t.n_ids);
    if (!tools || !texts || !ids) goto done;
    for (Py_ssize_t g = 0; g < t.n_groups; g++) {
        Group *one = &t.groups[g];
        const char *key = (const char *)t.arena + one->key;
        PyObject *tool = PyUnicode_DecodeUTF8(key, one->tool, "strict");
        if (!tool) goto done;
        PyList_SET_ITEM(tools, g, tool);
        PyObject *text = PyUnicode_DecodeUTF8(key + one->tool, one->args, "strict");
        if (!text) goto done;
        PyList_SET_ITEM(texts, g, text);
    }
    result = PyTuple_Pack(4, ids, tools, texts, alone);
    goto done;
nomem:
    PyErr_NoMemory();
done:
    Py_XDECREF(ids);
    Py_XDECREF(tools);
    Py_XDECREF(texts);
    Py_XDECREF(alone);
    PyMem_Free(names.excluded);
    table_free(&t);
    PyBuffer_Release(&view);
    return result;
}

/* --- splitting off the lines known to be accepted repeats ------------------------------- */

/* split_known(ids, known_mask) -> (known, rest, blank)
 *
 * ``ids``: a buffer's ids (group_payloads' first item); ``known_mask``: one byte per group,
 * non-zero for a group whose lines can be counted in bulk (a group past its end is not).
 * ``known``: {group: lines} for each known group with lines, in the order of its first
 * line; ``rest``: the native uint32 indices of the lines neither blank nor known, in order;
 * ``blank``: the number of blank lines. ``auditor.inputs.payload_groups.python_split_known``
 * is its twin. */
static PyObject *split_known(PyObject *self, PyObject *args) {
    (void)self;
    Py_buffer ids_view, mask_view;
    if (!PyArg_ParseTuple(args, "y*y*", &ids_view, &mask_view)) return NULL;
    PyObject *result = NULL, *known = NULL, *rest = NULL;
    uint32_t *counts = NULL, *order = NULL, *indices = NULL;
    if (ids_view.len % (Py_ssize_t)sizeof(uint32_t)) {
        PyErr_SetString(PyExc_ValueError, "ids must hold whole uint32 items");
        goto done;
    }
    Py_ssize_t n = ids_view.len / (Py_ssize_t)sizeof(uint32_t);
    Py_ssize_t groups = mask_view.len, n_order = 0, n_rest = 0, blank = 0;
    const unsigned char *mask = mask_view.buf;
    counts = PyMem_Calloc((size_t)groups + 1, sizeof(uint32_t));
    order = PyMem_Malloc(sizeof(uint32_t) * ((size_t)groups + 1));
    indices = PyMem_Malloc(sizeof(uint32_t) * ((size_t)n + 1));
    if (!counts || !order || !indices) {
        PyErr_NoMemory();
        goto done;
    }
    for (Py_ssize_t i = 0; i < n; i++) {
        uint32_t id;
        memcpy(&id, (const char *)ids_view.buf + i * (Py_ssize_t)sizeof(uint32_t), sizeof id);
        if (id == BLANK) {
            blank++;
        } else if (id != ALONE && (Py_ssize_t)id < groups && mask[id]) {
            if (!counts[id]++) order[n_order++] = id;
        } else {
            indices[n_rest++] = (uint32_t)i;
        }
    }
    known = PyDict_New();
    if (!known) goto done;
    for (Py_ssize_t k = 0; k < n_order; k++) {
        PyObject *group = PyLong_FromUnsignedLong(order[k]);
        PyObject *lines = group ? PyLong_FromUnsignedLong(counts[order[k]]) : NULL;
        int failed = !lines || PyDict_SetItem(known, group, lines) < 0;
        Py_XDECREF(group);
        Py_XDECREF(lines);
        if (failed) goto done;
    }
    rest = PyBytes_FromStringAndSize((const char *)indices, (Py_ssize_t)sizeof(uint32_t) * n_rest);
    if (!rest) goto done;
    result = Py_BuildValue("(OOn)", known, rest, blank);
done:
    Py_XDECREF(known);
    Py_XDECREF(rest);
    PyMem_Free(counts);
    PyMem_Free(order);
    PyMem_Free(indices);
    PyBuffer_Release(&ids_view);
    PyBuffer_Release(&mask_view);
    return result;
}

static PyMethodDef methods[] = {
    {"group_payloads", group_payloads, METH_VARARGS,
     "group_payloads(buffer, final, limit, tool_key, arguments_key, excluded) -> "
     "(ids, tools, texts, alone): a JSON Lines buffer's lines grouped by payload."},
    {"split_known", split_known, METH_VARARGS,
     "split_known(ids, known_mask) -> (known, rest, blank): the lines of known groups "
     "counted by group, the indices of the others, the blank lines counted."},
    {NULL, NULL, 0, NULL},
};

static struct PyModuleDef module = {
    PyModuleDef_HEAD_INIT, "_payload_groups", "JSON Lines payloads grouped in C.", -1, methods,
    NULL, NULL, NULL, NULL};

PyMODINIT_FUNC PyInit__payload_groups(void) {
    PyObject *made = PyModule_Create(&module);
    if (!made) return NULL;
    if (PyModule_AddIntConstant(made, "BLANK", (long)BLANK) < 0 ||
        PyModule_AddIntConstant(made, "ALONE", (long)ALONE) < 0) {
        Py_DECREF(made);
        return NULL;
    }
    return made;
}
