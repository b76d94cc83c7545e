#!/bin/sh
# corral run asks probe for the tier its plan needs, once. Without a
# policy file the plan is the embedded policy's, whose minimum tier is the
# highest (full), and probe starts before that policy is parsed; with one,
# once it is (its tier may be lower). A stand-in probe (in a copy of the
# step directory) notes its arguments and runs the real one. Without a
# policy file, with --no-network, and with policy files that need fs,
# fs+net and full (controls: the tier follows the file). As root and as
# nobody.
. "$CORRAL_TOP/tests/lib/tap.sh"

for who in root nobody; do
	if [ "$who" = root ]; then AS=""; else AS="setpriv --reuid=nobody --regid=nogroup --clear-groups --inh-caps=-all --bounding-set=-all --"; fi
	B=$TMP/$who
	D=$B/bin
	mkdir -p "$B/home" "$B/ws" "$D"
	cp "$CORRAL_BIN/corral" "$D/corral"
	for f in "$CORRAL_BIN"/*; do
		n=${f##*/}
		[ "$n" = corral ] || [ "$n" = probe ] || ln -s "$f" "$D/$n"
	done
	cat > "$D/probe" <<EOF2
#!/bin/sh
echo "\$*" >> "$B/asked"
exec "$CORRAL_BIN/probe" "\$@"
EOF2
	chmod 755 "$D/probe"
	printf '{"version": 1, "minimum_tier": "fs", "scope": false}\n' > "$B/fs.json"
	printf '{"version": 1, "minimum_tier": "fs", "scope": false, "network": {"connect": [443]}}\n' > "$B/fsnet.json"
	printf '{"version": 1, "minimum_tier": "fs", "scope": false, "network": "none"}\n' > "$B/none.json"
	[ "$who" = nobody ] && chown -R nobody:nogroup "$B"
	E="env -i PATH=/usr/bin:/bin HOME=$B/home"
	M=$B/ws/agent-ran

	for c in "no policy file::full" "--no-network:--no-network:full" "-p fs.json:-p $B/fs.json:fs" \
	    "-p fsnet.json:-p $B/fsnet.json:fs+net" "-p none.json:-p $B/none.json:full"; do
		name=${c%%:*}; rest=${c#*:}; opts=${rest%:*}; tier=${rest##*:}
		rm -f "$B/asked" "$M"
		run sh -c "cd '$B/ws' && $AS $E '$D/corral' run $opts -- sh -c 'touch $M'"
		is "$rc:$(ls "$M" 2>&1)" "0:$M" "$who: $name: the program runs"
		is "$(cat "$B/asked" 2>&1)" "--require $tier" "$who: $name: probe asked once, for $tier"
	done
done
done_testing
