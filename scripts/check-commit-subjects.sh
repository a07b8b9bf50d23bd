#!/usr/bin/env bash
# Every commit after BASE has a subject of 72 characters or fewer (the same rule as the
# .githooks/commit-msg hook). Usage: scripts/check-commit-subjects.sh [BASE]
set -euo pipefail
BASE=${1:-9f0f04b}
MAX=72
# Written before the rule was checked; history is not rewritten.
GRANDFATHERED=" 4697e4e 5230fd4 b945f6f 2457771 89287e9 a60bd8f a954f6a "

if ! git cat-file -e "$BASE^{commit}" 2>/dev/null; then
  echo "check-commit-subjects: $BASE is not in this clone (shallow?); checking HEAD only" >&2
  range=(-1 HEAD)
else
  range=("$BASE..HEAD")
fi

bad=0
while IFS=' ' read -r hash subject; do
  [[ "$GRANDFATHERED" == *" ${hash:0:7} "* ]] && continue
  length=$(printf '%s' "$subject" | wc -m)
  if ((length > MAX)); then
    echo "$hash: subject of $length characters (at most $MAX): $subject" >&2
    bad=1
  fi
done < <(git log --no-merges --format="%H %s" "${range[@]}")

if ((bad)); then
  echo "check-commit-subjects: shorten these subjects (details go in the body)" >&2
  exit 1
fi
echo "check-commit-subjects: every subject after $BASE is $MAX characters or fewer"
