/* Group the identical lines of a buffer in one pass, with no Python object per line. */
#define PY_SSIZE_T_CLEAN
#include <Python.h>
#include <stdint.h>
#include <string.h>
#include <ctype.h>

typedef struct {
    Py_ssize_t start; /* offset of the group's first line in the buffer */
    Py_ssize_t size;
    Py_ssize_t count;
    Py_ssize_t first;
    Py_ssize_t last;
} Group;
/* The hash index: one uint64 per slot, the hash's high 32 bits and the group's index + 1
 * (0: empty), so a probe reads 8 bytes and touches a group only on a likely match. Groups
 * lie in order of first sight, so the result is built by a sequential read. */

static inline uint64_t mix(uint64_t h) {
    h ^= h >> 33; h *= 0xff51afd7ed558ccdULL;
    h ^= h >> 33; h *= 0xc4ceb9fe1a85ec53ULL;
    h ^= h >> 33;
    return h;
}

static uint64_t hash_bytes(const unsigned char *p, Py_ssize_t n) {
    uint64_t h = 0x9e3779b97f4a7c15ULL ^ (uint64_t)n;
    while (n >= 8) {
        uint64_t w;
        memcpy(&w, p, 8);
        h = (h ^ mix(w)) * 0x100000001b3ULL;
        h = (h << 31) | (h >> 33);
        p += 8; n -= 8;
    }
    uint64_t w = 0;
    memcpy(&w, p, (size_t)n);
    return mix(h ^ mix(w + (uint64_t)n));
}

/* group_lines(buffer, first_line) -> (lines, counts, firsts, lasts, ids, consumed, blank)
 * Lines end at '\n' (a trailing '\r' is dropped from the text, as the reader's rstrip does);
 * the last, unterminated, line is left for the next buffer (consumed says where it starts).
 * Blank lines (empty after the '\r') are counted, not grouped. ids: one uint32 per line
 * (0xffffffff for a blank), the index of its group. */
static PyObject *group_lines(PyObject *self, PyObject *args) {
    (void)self;
    Py_buffer view;
    Py_ssize_t first_line = 1;
    int final = 0;
    if (!PyArg_ParseTuple(args, "y*|np", &view, &first_line, &final)) return NULL;
    const unsigned char *data = view.buf;
    Py_ssize_t size = view.len;
    Py_ssize_t lines_guess = size / 64 + 16;
    Py_ssize_t capacity = 1024, groups_cap = 1024;
    while (capacity < lines_guess * 2) capacity <<= 1;
    uint64_t *index = PyMem_Calloc((size_t)capacity, sizeof(uint64_t));
    Group *groups_of = PyMem_Malloc(sizeof(Group) * (size_t)groups_cap);
    Py_ssize_t ids_cap = lines_guess, nlines = 0, groups = 0, blank = 0;
    uint32_t *ids = PyMem_Malloc(sizeof(uint32_t) * (size_t)ids_cap);
    if (!index || !groups_of || !ids) goto nomem;
    Py_ssize_t pos = 0;
    while (pos < size) {
        const unsigned char *nl = memchr(data + pos, '\n', (size_t)(size - pos));
        Py_ssize_t end;
        if (nl == NULL) {
            if (!final) break;
            end = size;
        } else end = nl - data;
        Py_ssize_t len = end - pos;
        if (len && data[pos + len - 1] == '\r') len--;
        Py_ssize_t number = first_line + nlines;
        if (nlines == ids_cap) {
            ids_cap *= 2;
            uint32_t *grown = PyMem_Realloc(ids, sizeof(uint32_t) * (size_t)ids_cap);
            if (!grown) goto nomem;
            ids = grown;
        }
        if (len == 0) {
            ids[nlines++] = 0xffffffffu;
            blank++;
        } else {
            if ((groups + 1) * 2 > capacity) { /* grow the index: rehash from the groups */
                Py_ssize_t newcap = capacity * 2;
                uint64_t *bigger = PyMem_Calloc((size_t)newcap, sizeof(uint64_t));
                if (!bigger) goto nomem;
                for (Py_ssize_t i = 0; i < capacity; i++) {
                    uint64_t entry = index[i];
                    if (!entry) continue;
                    Group *g = &groups_of[(entry & 0xffffffffu) - 1];
                    uint64_t h = hash_bytes(data + g->start, g->size);
                    Py_ssize_t j = (Py_ssize_t)(h & (uint64_t)(newcap - 1));
                    while (bigger[j]) j = (j + 1) & (newcap - 1);
                    bigger[j] = entry;
                }
                PyMem_Free(index);
                index = bigger; capacity = newcap;
            }
            if (groups == groups_cap) {
                groups_cap *= 2;
                Group *grown = PyMem_Realloc(groups_of, sizeof(Group) * (size_t)groups_cap);
                if (!grown) goto nomem;
                groups_of = grown;
            }
            uint64_t h = hash_bytes(data + pos, len);
            uint64_t tag = h >> 32;
            Py_ssize_t j = (Py_ssize_t)(h & (uint64_t)(capacity - 1));
            for (;;) {
                uint64_t entry = index[j];
                if (!entry) {
                    Group *g = &groups_of[groups];
                    g->start = pos; g->size = len; g->count = 1; g->first = g->last = number;
                    index[j] = (tag << 32) | (uint64_t)(groups + 1);
                    ids[nlines] = (uint32_t)groups++;
                    break;
                }
                if ((entry >> 32) == tag) {
                    Group *g = &groups_of[(entry & 0xffffffffu) - 1];
                    if (g->size == len && memcmp(data + g->start, data + pos, (size_t)len) == 0) {
                        g->count++; g->last = number;
                        ids[nlines] = (uint32_t)((entry & 0xffffffffu) - 1);
                        break;
                    }
                }
                j = (j + 1) & (capacity - 1);
            }
            nlines++;
        }
        pos = nl == NULL ? size : end + 1;
    }
    PyObject *lines = PyList_New(groups), *counts = PyList_New(groups);
    PyObject *firsts = PyList_New(groups), *lasts = PyList_New(groups);
    PyObject *idbytes = PyBytes_FromStringAndSize((const char *)ids, (Py_ssize_t)sizeof(uint32_t) * nlines);
    if (!lines || !counts || !firsts || !lasts || !idbytes) goto fail;
    for (Py_ssize_t g = 0; g < groups; g++) {
        Group *s = &groups_of[g];
        PyObject *text = PyBytes_FromStringAndSize((const char *)data + s->start, s->size);
        if (!text) goto fail;
        PyList_SET_ITEM(lines, g, text);
        PyList_SET_ITEM(counts, g, PyLong_FromSsize_t(s->count));
        PyList_SET_ITEM(firsts, g, PyLong_FromSsize_t(s->first));
        PyList_SET_ITEM(lasts, g, PyLong_FromSsize_t(s->last));
    }
    PyMem_Free(index); PyMem_Free(groups_of); PyMem_Free(ids);
    PyBuffer_Release(&view);
    return Py_BuildValue("(NNNNNnn)", lines, counts, firsts, lasts, idbytes, pos, blank);
fail:
    Py_XDECREF(lines); Py_XDECREF(counts); Py_XDECREF(firsts); Py_XDECREF(lasts); Py_XDECREF(idbytes);
    PyMem_Free(index); PyMem_Free(groups_of); PyMem_Free(ids);
    PyBuffer_Release(&view);
    return NULL;
nomem:
    PyMem_Free(index); PyMem_Free(groups_of); PyMem_Free(ids);
    PyBuffer_Release(&view);
    return PyErr_NoMemory();
}

/* --- Payload keys: a JSON Lines record's (tool, arguments) members, raw ------------------
 * A strict scanner checks the whole line (JSON syntax, UTF-8, nesting) without building
 * anything, and notes where the values of the top-level members "tool" and "arguments"
 * stand. Lines whose such members are equal byte for byte are one group whatever the rest
 * (an id, a timestamp) holds; a line the scanner does not accept (broken, a duplicate or
 * escaped key, no such member) is a group of its own, for the reader's ordinary way. */

typedef struct {
    const unsigned char *p, *end;
    int depth;
} Scan;

static int ws(Scan *s) {
    while (s->p < s->end && (*s->p == ' ' || *s->p == '\t' || *s->p == '\n' || *s->p == '\r')) s->p++;
    return s->p < s->end;
}

/* A string at s->p (on its quote); *escaped: whether it held a backslash. */
static int string(Scan *s, int *escaped) {
    const unsigned char *p = s->p + 1, *end = s->end;
    *escaped = 0;
    while (p < end) {
        unsigned char c = *p;
        if (c == '"') { s->p = p + 1; return 1; }
        if (c < 0x20) return 0;
        if (c == '\\') {
            *escaped = 1;
            if (++p >= end) return 0;
            c = *p;
            if (c == 'u') {
                for (int i = 1; i <= 4; i++)
                    if (p + i >= end || !isxdigit(p[i])) return 0;
                /* a surrogate half is left to the reader's own parse: not grouped */
                if ((p[1] == 'd' || p[1] == 'D') && strchr("89abAB89abcdefCDEF", p[2]) && (p[2] >= '8' || p[2] >= 'A')) return 0;
                p += 5;
                continue;
            }
            if (!strchr("\"\\/bfnrt", c) || !c) return 0;
            p++;
            continue;
        }
        if (c < 0x80) { p++; continue; }
        /* UTF-8, strictly: no overlongs, no surrogates, nothing past U+10FFFF */
        int n; unsigned int cp;
        if (c >= 0xc2 && c <= 0xdf) { n = 1; cp = c & 0x1f; }
        else if (c >= 0xe0 && c <= 0xef) { n = 2; cp = c & 0x0f; }
        else if (c >= 0xf0 && c <= 0xf4) { n = 3; cp = c & 0x07; }
        else return 0;
        if (p + n >= end) return 0;
        for (int i = 1; i <= n; i++) {
            if ((p[i] & 0xc0) != 0x80) return 0;
            cp = (cp << 6) | (p[i] & 0x3f);
        }
        if ((n == 2 && (cp < 0x800 || (cp >= 0xd800 && cp <= 0xdfff))) || (n == 3 && (cp < 0x10000 || cp > 0x10ffff))) return 0;
        p += n + 1;
    }
    return 0;
}

static int value(Scan *s);

static int number(Scan *s) {
    const unsigned char *p = s->p, *end = s->end, *digits;
    if (p < end && *p == '-') p++;
    digits = p;
    if (p < end && *p == '0') p++;
    else { while (p < end && isdigit(*p)) p++; }
    if (p == digits) return 0;
    /* an integer past 64 bits, or a float past a double, is left to the reader's parse */
    if (p - digits > 18) return 0;
    if (p < end && *p == '.') { p++; digits = p; while (p < end && isdigit(*p)) p++; if (p == digits) return 0; }
    if (p < end && (*p == 'e' || *p == 'E')) {
        p++;
        if (p < end && (*p == '+' || *p == '-')) p++;
        digits = p; while (p < end && isdigit(*p)) p++;
        if (p == digits || p - digits > 2) return 0;
    }
    s->p = p;
    return 1;
}

static int literal(Scan *s, const char *word, size_t n) {
    if ((size_t)(s->end - s->p) < n || memcmp(s->p, word, n)) return 0;
    s->p += n;
    return 1;
}

static int value(Scan *s) {
    int escaped;
    if (!ws(s)) return 0;
    switch (*s->p) {
    case '"': return string(s, &escaped);
    case '{':
    case '[': {
        unsigned char close = *s->p == '{' ? '}' : ']';
        int object = close == '}';
        if (++s->depth > 64) return 0; /* deeper: left to the reader (its nesting bound) */
        s->p++;
        if (!ws(s)) return 0;
        if (*s->p == close) { s->p++; s->depth--; return 1; }
        for (;;) {
            if (object) {
                if (!ws(s) || *s->p != '"' || !string(s, &escaped)) return 0;
                if (!ws(s) || *s->p != ':') return 0;
                s->p++;
            }
            if (!value(s) || !ws(s)) return 0;
            if (*s->p == ',') { s->p++; continue; }
            if (*s->p != close) return 0;
            s->p++;
            s->depth--;
            return 1;
        }
    }
    case 't': return literal(s, "true", 4);
    case 'f': return literal(s, "false", 5);
    case 'n': return literal(s, "null", 4);
    default: return number(s);
    }
}

/* The spans of the top-level "tool" and "arguments" values; 0 where the line is not one
 * record the scanner vouches for. */
static int payload(const unsigned char *line, Py_ssize_t len, const unsigned char *span[4]) {
    Scan s = {line, line + len, 1};
    int escaped, found = 0;
    span[0] = span[1] = span[2] = span[3] = NULL;
    if (!ws(&s) || *s.p != '{') return 0;
    s.p++;
    if (!ws(&s)) return 0;
    if (*s.p == '}') return 0;
    for (;;) {
        const unsigned char *key;
        if (!ws(&s) || *s.p != '"') return 0;
        key = s.p + 1;
        if (!string(&s, &escaped) || escaped) return 0;
        size_t klen = (size_t)(s.p - 1 - key);
        if (!ws(&s) || *s.p != ':') return 0;
        s.p++;
        if (!ws(&s)) return 0;
        const unsigned char *start = s.p;
        if (!value(&s)) return 0;
        int slot = klen == 4 && !memcmp(key, "tool", 4) ? 0 : klen == 9 && !memcmp(key, "arguments", 9) ? 2 : -1;
        if (slot >= 0) {
            if (span[slot]) return 0; /* a duplicate: the reader's parse decides */
            span[slot] = start; span[slot + 1] = s.p;
            found++;
        }
        if (!ws(&s)) return 0;
        if (*s.p == ',') { s.p++; continue; }
        if (*s.p != '}') return 0;
        s.p++;
        break;
    }
    if (ws(&s)) return 0; /* text after the record */
    return found == 2;
}

/* group_payloads(buffer, first_line, final) -> as group_lines, lines grouped by payload:
 * each group's line is its first. */
static PyObject *group_payloads(PyObject *self, PyObject *args) {
    (void)self;
    Py_buffer view;
    Py_ssize_t first_line = 1;
    int final = 0;
    if (!PyArg_ParseTuple(args, "y*|np", &view, &first_line, &final)) return NULL;
    const unsigned char *data = view.buf;
    Py_ssize_t size = view.len;
    Py_ssize_t lines_guess = size / 64 + 16;
    Py_ssize_t capacity = 1024, groups_cap = 1024;
    while (capacity < lines_guess * 2) capacity <<= 1;
    uint64_t *index = PyMem_Calloc((size_t)capacity, sizeof(uint64_t));
    Group *groups_of = PyMem_Malloc(sizeof(Group) * (size_t)groups_cap);
    uint64_t *hashes = PyMem_Malloc(sizeof(uint64_t) * (size_t)groups_cap);
    Py_ssize_t *keys = PyMem_Malloc(sizeof(Py_ssize_t) * 4 * (size_t)groups_cap);
    Py_ssize_t ids_cap = lines_guess, nlines = 0, groups = 0, blank = 0;
    uint32_t *ids = PyMem_Malloc(sizeof(uint32_t) * (size_t)ids_cap);
    PyObject *lines = NULL, *counts = NULL, *firsts = NULL, *lasts = NULL, *idbytes = NULL;
    if (!index || !groups_of || !ids || !hashes || !keys) goto nomem;
    Py_ssize_t pos = 0;
    while (pos < size) {
        const unsigned char *nl = memchr(data + pos, '\n', (size_t)(size - pos));
        Py_ssize_t end;
        if (nl == NULL) {
            if (!final) break;
            end = size;
        } else end = nl - data;
        Py_ssize_t len = end - pos;
        if (len && data[pos + len - 1] == '\r') len--;
        Py_ssize_t number = first_line + nlines;
        if (nlines == ids_cap) {
            ids_cap *= 2;
            uint32_t *grown = PyMem_Realloc(ids, sizeof(uint32_t) * (size_t)ids_cap);
            if (!grown) goto nomem;
            ids = grown;
        }
        if (len == 0) { ids[nlines++] = 0xffffffffu; blank++; pos = nl == NULL ? size : end + 1; continue; }
        if ((groups + 1) * 2 > capacity) {
            Py_ssize_t newcap = capacity * 2;
            uint64_t *bigger = PyMem_Calloc((size_t)newcap, sizeof(uint64_t));
            if (!bigger) goto nomem;
            for (Py_ssize_t i = 0; i < capacity; i++) {
                uint64_t entry = index[i];
                if (!entry) continue;
                uint64_t h = hashes[(entry & 0xffffffffu) - 1];
                Py_ssize_t j = (Py_ssize_t)(h & (uint64_t)(newcap - 1));
                while (bigger[j]) j = (j + 1) & (newcap - 1);
                bigger[j] = entry;
            }
            PyMem_Free(index);
            index = bigger; capacity = newcap;
        }
        if (groups == groups_cap) {
            groups_cap *= 2;
            Group *g2 = PyMem_Realloc(groups_of, sizeof(Group) * (size_t)groups_cap);
            if (g2) groups_of = g2;
            uint64_t *h2 = PyMem_Realloc(hashes, sizeof(uint64_t) * (size_t)groups_cap);
            if (h2) hashes = h2;
            Py_ssize_t *k2 = PyMem_Realloc(keys, sizeof(Py_ssize_t) * 4 * (size_t)groups_cap);
            if (k2) keys = k2;
            if (!g2 || !h2 || !k2) goto nomem;
        }
        const unsigned char *span[4];
        Py_ssize_t at[4] = {-1, -1, -1, -1};
        uint64_t h;
        if (payload(data + pos, len, span)) {
            for (int i = 0; i < 4; i++) at[i] = span[i] - data;
            h = hash_bytes(span[0], span[1] - span[0]) * 31 + hash_bytes(span[2], span[3] - span[2]);
        } else h = hash_bytes(data + pos, len) ^ 0x5bd1e995ULL; /* its own line */
        uint64_t tag = h >> 32;
        Py_ssize_t j = (Py_ssize_t)(h & (uint64_t)(capacity - 1));
        for (;;) {
            uint64_t entry = index[j];
            if (!entry) {
                Group *g = &groups_of[groups];
                g->start = pos; g->size = len; g->count = 1; g->first = g->last = number;
                hashes[groups] = h;
                memcpy(&keys[4 * groups], at, sizeof at);
                index[j] = (tag << 32) | (uint64_t)(groups + 1);
                ids[nlines] = (uint32_t)groups++;
                break;
            }
            if ((entry >> 32) == tag) {
                Py_ssize_t k = (Py_ssize_t)(entry & 0xffffffffu) - 1;
                Group *g = &groups_of[k];
                Py_ssize_t *key = &keys[4 * k];
                int same;
                if (at[0] < 0 || key[0] < 0)
                    same = at[0] < 0 && key[0] < 0 && g->size == len && !memcmp(data + g->start, data + pos, (size_t)len);
                else
                    same = key[1] - key[0] == at[1] - at[0] && key[3] - key[2] == at[3] - at[2]
                        && !memcmp(data + key[0], data + at[0], (size_t)(at[1] - at[0]))
                        && !memcmp(data + key[2], data + at[2], (size_t)(at[3] - at[2]));
                if (same) {
                    g->count++; g->last = number;
                    ids[nlines] = (uint32_t)k;
                    break;
                }
            }
            j = (j + 1) & (capacity - 1);
        }
        nlines++;
        pos = nl == NULL ? size : end + 1;
    }
    lines = PyList_New(groups); counts = PyList_New(groups);
    firsts = PyList_New(groups); lasts = PyList_New(groups);
    idbytes = PyBytes_FromStringAndSize((const char *)ids, (Py_ssize_t)sizeof(uint32_t) * nlines);
    if (!lines || !counts || !firsts || !lasts || !idbytes) goto fail;
    for (Py_ssize_t g = 0; g < groups; g++) {
        Group *s = &groups_of[g];
        PyObject *text = PyBytes_FromStringAndSize((const char *)data + s->start, s->size);
        if (!text) goto fail;
        PyList_SET_ITEM(lines, g, text);
        PyList_SET_ITEM(counts, g, PyLong_FromSsize_t(s->count));
        PyList_SET_ITEM(firsts, g, PyLong_FromSsize_t(s->first));
        PyList_SET_ITEM(lasts, g, PyLong_FromSsize_t(s->last));
    }
    PyMem_Free(index); PyMem_Free(groups_of); PyMem_Free(ids); PyMem_Free(hashes); PyMem_Free(keys);
    PyBuffer_Release(&view);
    return Py_BuildValue("(NNNNNnn)", lines, counts, firsts, lasts, idbytes, pos, blank);
nomem:
    PyErr_NoMemory();
fail:
    Py_XDECREF(lines); Py_XDECREF(counts); Py_XDECREF(firsts); Py_XDECREF(lasts); Py_XDECREF(idbytes);
    PyMem_Free(index); PyMem_Free(groups_of); PyMem_Free(ids); PyMem_Free(hashes); PyMem_Free(keys);
    PyBuffer_Release(&view);
    return NULL;
}

static PyMethodDef methods[] = {
    {"group_lines", group_lines, METH_VARARGS, "Group a buffer's identical lines."},
    {"group_payloads", group_payloads, METH_VARARGS, "Group a buffer's lines by (tool, arguments)."},
    {NULL, NULL, 0, NULL},
};

static struct PyModuleDef module = {
    PyModuleDef_HEAD_INIT, "_line_groups", NULL, -1, methods, NULL, NULL, NULL, NULL};

PyMODINIT_FUNC PyInit__line_groups(void) { return PyModule_Create(&module); }
