#!/usr/bin/env bash
# Two objects naming the same system at the same state share one pin.
. "$(dirname "$0")/lib.sh"
use_memory_store
new_dataset
ok tether add a sys1 --kind memory
ok tether add b --set system=sys1 --kind memory
ok tether commit -m first --json
ra=$(json 'j["pinned"]["a"]')
eq "$(json 'j["pinned"]["b"]')" "$ra" "b's pin"
eq "$(mem_tags sys1)" "$ra sys1:s0"
eq "$(sed -n '/^\[pin\]/,$p' .tether/objects/a.toml)" "$(sed -n '/^\[pin\]/,$p' .tether/objects/b.toml)"
