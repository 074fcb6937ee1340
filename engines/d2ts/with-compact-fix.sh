#!/usr/bin/env bash
# Run the suite against d2ts 0.1.8 with the one-line fix to Index.compact (README,
# "index-compaction"): a copy of the installed engine (incspec engines install d2ts) in a
# temporary folder, `this.#inner.delete(key)` replaced by `versions.delete(version)` in the
# built version-index.js, so that compacting deletes only the version that netted to nothing,
# not the key's whole version map. Arguments go to `incspec conform --engine d2ts`; by default
# the cases exploration found (engines/d2ts/explored/). The installed engine is not changed.
set -euo pipefail
root=$(cd "$(dirname "$0")/../.." && pwd)
py=${PYTHON:-$root/.venv/bin/python}
installed=${INCSPEC_ENGINE_CACHE:-$root/.engines}/d2ts
built=node_modules/@electric-sql/d2ts/dist/version-index.js
if [ ! -f "$installed/$built" ]; then
  echo "with-compact-fix: d2ts is not installed in $installed (incspec engines install d2ts)" >&2
  exit 2
fi
copy=$(mktemp -d)
trap 'rm -rf "$copy"' EXIT
cp -r "$installed" "$copy/d2ts"
line='this.#inner.delete(key);'
if [ "$(grep -cF "$line" "$copy/d2ts/$built")" != 1 ]; then
  echo "with-compact-fix: $built does not hold the line '$line' exactly once: not d2ts 0.1.8?" >&2
  exit 2
fi
sed -i "s/this\.#inner\.delete(key);/versions.delete(version);/" "$copy/d2ts/$built"
[ $# -gt 0 ] || set -- --cases "$root/engines/d2ts/explored/d2ts"
cd "$root"
INCSPEC_ENGINE_CACHE=$copy "$py" -m incspec conform --engine d2ts --no-progress "$@"
