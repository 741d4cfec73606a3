#!/usr/bin/env bash
# Post a Markdown file (the Action's auditor-reports/comment.md: `auditor audit --format
# comment`, the short answer with a link to the run's reports) as one pull-request comment and
# update that comment in place on every later push, instead of adding a comment per push. Used
# by action.yml; needs `gh`, GH_TOKEN, PR_NUMBER and GITHUB_REPOSITORY (all present in a
# GitHub Actions pull-request job).
#
# The comment is found again by a hidden marker on its first line AND by its author: the
# identity of the token, the one that posted it. Anyone can write a comment that starts
# with the marker; such a comment by someone else is left alone (its author could rewrite
# it after the audit), and the report is posted as a comment of our own.
#
# A token that may not comment (a pull request from a fork gets a read-only one) is not a
# failed audit: the comment is skipped with a warning, and the audit's own exit code stands.
set -uo pipefail

report="$1"
marker='<!-- tool-schema-auditor report -->'
body="$(mktemp)"
trap 'rm -f "$body"' EXIT
{ printf '%s\n' "$marker"; cat "$report"; } >"$body"

# The login that comments made with this token carry in the REST API.
token_login() {
    local login viewer kind
    # A user's token (a personal access token) reads its own user.
    if login="$(gh api user --jq .login 2>/dev/null)" && [ -n "$login" ]; then
        printf '%s\n' "$login"
        return
    fi
    # An installation token cannot (the job's GITHUB_TOKEN, a GitHub App's token), but
    # GraphQL names its bot: github-actions, or the App's slug; REST adds "[bot]".
    if viewer="$(gh api graphql -f query='query { viewer { __typename login } }' \
            --jq '.data.viewer | "\(.__typename) \(.login)"' 2>/dev/null)"; then
        read -r kind login <<<"$viewer"
        if [ -n "$login" ] && [ "$kind" = Bot ]; then
            printf '%s[bot]\n' "${login%\[bot\]}"
            return
        elif [ -n "$login" ] && [ "$kind" = User ]; then
            printf '%s\n' "$login"
            return
        fi
    fi
    printf '%s\n' 'github-actions[bot]'  # who comments with the default token
}

comments="repos/$GITHUB_REPOSITORY/issues/$PR_NUMBER/comments"
if ! found="$(gh api --paginate "$comments" \
        --jq ".[] | select((.body // \"\") | startswith(\"$marker\")) | \"\(.id) \(.user.login)\"")"; then
    echo "::warning::auditor: could not read the pull request's comments; no comment posted"
    exit 0
fi
id=""
if [ -n "$found" ]; then
    me="$(token_login)"
    others=0
    while read -r candidate author; do
        if [ -z "$id" ] && [ "$author" = "$me" ] && [[ "$candidate" =~ ^[0-9]+$ ]]; then
            id="$candidate"  # the oldest of our own
        elif [ "$author" != "$me" ]; then
            others=$((others + 1))
        fi
    done <<<"$found"
    if [ "$others" -gt 0 ]; then
        echo "::notice::auditor: $others comment(s) by others start with the report's marker; left alone (the report is the comment by $me)"
    fi
fi
if [ -n "$id" ]; then
    gh api --method PATCH "repos/$GITHUB_REPOSITORY/issues/comments/$id" -F "body=@$body" >/dev/null \
        || echo "::warning::auditor: could not update the report comment $id"
else
    gh api --method POST "$comments" -F "body=@$body" >/dev/null \
        || echo "::warning::auditor: could not post the report comment (does the job have pull-requests: write?)"
fi
