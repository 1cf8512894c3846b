#!/usr/bin/env bash
# A malformed object manifest is refused naming .tether/objects/<key>.toml and the line; a
# manifest without `key` is refused with the reference's message.
. "$(dirname "$0")/lib.sh"
new_dataset
mkdir -p "$TMP/d"
ok tether add sub/obj "$TMP/d" --kind file
printf 'this is = = not toml\n' >>.tether/objects/sub/obj.toml
line=$(grep -n '= = not' .tether/objects/sub/obj.toml | cut -d: -f1)
remember_state
fails 1 tether status
err_lines 1
err_matches "\.tether/objects/sub/obj\.toml.*(line $line|:$line)"
unchanged
fails 1 tether commit -m x
err_has ".tether/objects/sub/obj.toml"
unchanged
sed -i '$d' .tether/objects/sub/obj.toml
sed -i '/^key = /d' .tether/objects/sub/obj.toml
fails 1 tether status
err_has "object manifest missing 'key'"
err_has ".tether/objects/sub/obj.toml"
