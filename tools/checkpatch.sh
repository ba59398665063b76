#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# Run the kernel's checkpatch.pl --strict over our kernel sources.  The script
# comes from Debian's linux-source-6.12 (make deps), unpacked into build/.
#   tools/checkpatch.sh [FILE...]
set -euo pipefail
cd "$(dirname "$0")/.."
cp_dir=build/checkpatch
if [ ! -x $cp_dir/scripts/checkpatch.pl ]; then
	src=$(ls -1 /usr/src/linux-source-6.12*.tar.* 2>/dev/null | sort -V | tail -1)
	[ -n "$src" ] || { echo "checkpatch: linux-source-6.12 missing (make deps)" >&2; exit 1; }
	mkdir -p $cp_dir
	top=linux-source-6.12
	tar -xf "$src" -C $cp_dir --strip-components=1 \
		"$top/scripts/checkpatch.pl" "$top/scripts/spelling.txt" \
		"$top/scripts/const_structs.checkpatch"
fi
if [ $# -eq 0 ]; then
	set -- $(git ls-files 'kernel/*.c' 'kernel/*.h')
fi
$cp_dir/scripts/checkpatch.pl --strict --no-tree --quiet --terse --show-types \
	--ignore FILE_PATH_CHANGES,SPDX_LICENSE_TAG -f "$@"
