#!/usr/bin/env bash
# Post a Markdown report as one pull-request comment and update that comment in place on
# every later push, instead of adding a comment per push. The comment is found again by a
# hidden marker on its first line. Used by action.yml; needs `gh`, GH_TOKEN, PR_NUMBER and
# GITHUB_REPOSITORY (all present in a GitHub Actions pull-request job).
#
# A token that may not comment (a pull request from a fork gets a read-only one) is not a
# failed audit: the comment is skipped with a warning, and the audit's own exit code stands.
set -uo pipefail

report="$1"
marker='<!-- tool-schema-auditor report -->'
body="$(mktemp)"
trap 'rm -f "$body"' EXIT
{ printf '%s\n' "$marker"; cat "$report"; } >"$body"

comments="repos/$GITHUB_REPOSITORY/issues/$PR_NUMBER/comments"
if ! found="$(gh api --paginate "$comments" \
        --jq ".[] | select(.body | startswith(\"$marker\")) | .id")"; then
    echo "::warning::auditor: could not read the pull request's comments; no comment posted"
    exit 0
fi
id="$(printf '%s\n' "$found" | head -n 1)"
if [ -n "$id" ]; then
    gh api --method PATCH "repos/$GITHUB_REPOSITORY/issues/comments/$id" -F "body=@$body" >/dev/null \
        || echo "::warning::auditor: could not update the report comment $id"
else
    gh api --method POST "$comments" -F "body=@$body" >/dev/null \
        || echo "::warning::auditor: could not post the report comment (does the job have pull-requests: write?)"
fi
