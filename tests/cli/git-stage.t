#!/bin/sh
# git-stage by hand: create makes the checkout and prints it, finish
# imports the agent's work onto a corral/ branch from inside its own
# boundary: a write outside the attempt's directory, the checkout's slot
# and the repository's objects, refs and logs is refused (attack), one
# inside the attempt's directory is not (control), and the same user
# writes the refused path outside git-stage (control). As root and nobody.
. "$CORRAL_TOP/tests/lib/tap.sh"
GS=$CORRAL_BIN/git-stage
G() { git -c safe.directory='*' "$@"; }

suite() {
	who=$1
	if [ "$who" = root ]; then AS=""; else AS="setpriv --reuid=nobody --regid=nogroup --clear-groups --inh-caps=-all --bounding-set=-all --"; fi
	B=$TMP/$who
	mkdir -p "$B/home/st" "$B/repo"
	chmod 700 "$B/home/st"
	(cd "$B/repo" && G init -q && echo one > a && git add a && git -c user.name=t -c user.email=t@t commit -q -m init)
	[ "$who" = nobody ] && chown -R nobody:nogroup "$B"
	S=$B/home/st E="env -i PATH=/usr/bin:/bin HOME=$B/home"
	id=0123456789abcdef0123456789abcdef

	run $AS $E "$GS" create --state "$S" --attempt $id "$B/repo"
	is "$rc" 0 "$who: create"
	work=$(printf '%s\n' "$out" | sed -n 's/^work //p')
	like "$work" "^$S/git/co/" "$who: ... prints the checkout, in the store"
	like "$(printf '%s\n' "$out" | sed -n 's/^cwd //p')" "^$work\$" "$who: ... and where the agent starts"
	like "$err" "^git-stage: git: worktree: the agent works in $work" "$who: ... and says so in its own name"
	status_ok "$([ -f "$S/git/$id/state" ]; echo $?)" "$who: ... its state in the attempt's directory"
	is "$(cat "$work/a")" one "$who: ... the checkout holds the files"
	# the agent's work: a commit and a file
	echo agent > "$work/c"
	[ "$who" = nobody ] && chown -R nobody:nogroup "$work"

	# the attack: a write into the user's home, from inside finish
	run $AS $E GIT_STAGE_TEST_WRITE="$B/home/pwned" "$GS" finish --state "$S" --attempt $id
	is "$rc" 0 "$who: finish"
	like "$err" "test: $B/home/pwned: Permission denied" "$who: attack: finish cannot write into the home"
	status_ok "$([ ! -e "$B/home/pwned" ]; echo $?)" "$who: ... nothing made there"
	like "$err" "git-stage: git: branch corral/01234567: " "$who: ... and its import still works"
	is "$(cd "$B/repo" && G show corral/01234567:c)" agent "$who: ... the agent's file on the branch"
	is "$(cd "$B/repo" && G status --porcelain)" "" "$who: ... the user's checkout untouched"
	status_ok "$([ ! -e "$S/git/$id" ]; echo $?)" "$who: ... the attempt's directory removed"
	# control: the same user writes there outside git-stage
	run $AS $E sh -c "echo x > '$B/home/pwned'"
	is "$rc" 0 "$who: control: the same user writes into the home outside finish"
	rm -f "$B/home/pwned"

	# control: a write into the attempt's directory, from inside finish
	id2=fedcba9876543210fedcba9876543210
	run $AS $E "$GS" create --state "$S" --attempt $id2 "$B/repo"
	is "$rc" 0 "$who: control: a second create"
	run $AS $E GIT_STAGE_TEST_WRITE="$S/git/$id2/probe" "$GS" finish --state "$S" --attempt $id2
	like "$err" "test: $S/git/$id2/probe: written" "$who: control: finish writes into the attempt's directory"
	like "$err" "the agent changed nothing" "$who: ... nothing to import"
	# nothing of it left running (the checkout's holder ended)
	sleep 0.2
	status_ok "$(pgrep -f "git-stage create.*$B/repo" >/dev/null; [ $? -ne 0 ]; echo $?)" "$who: no holder left"

	# discard: an attempt set up and never run
	id3=00000000111111112222222233333333
	run $AS $E "$GS" create --state "$S" --attempt $id3 "$B/repo"
	run $AS $E "$GS" discard --state "$S" --attempt $id3
	is "$rc" 0 "$who: discard"
	status_ok "$([ ! -e "$S/git/$id3" ]; echo $?)" "$who: ... the attempt's directory removed"
	is "$(cd "$B/repo" && G for-each-ref 'refs/heads/corral/*' | wc -l)" 1 "$who: ... no branch made"
	# an ignored dependency directory linked in (--dep): finish leaves it
	# out of the import without git add's "paths are ignored ... Use -f"
	# noise; the agent's own directory in its place, un-ignored, stays
	# out too
	D=$B/dep
	mkdir -p "$D/node_modules/pkg"
	echo pkg > "$D/node_modules/pkg/index.js"
	echo node_modules > "$D/.gitignore"
	(cd "$D" && G init -q && git add .gitignore && git -c user.name=t -c user.email=t@t commit -q -m init)
	[ "$who" = nobody ] && chown -R nobody:nogroup "$D"
	id4=44444444555555556666666677777777
	run $AS $E "$GS" create --state "$S" --attempt $id4 --dep node_modules "$D"
	is "$(printf '%s\n' "$out" | grep -c '^dep node_modules$')" 1 "$who: create --dep: the ignored node_modules linked in"
	hp=$(printf '%s\n' "$out" | sed -n 's/^holder //p')
	status_ok "$(kill -0 "$hp" 2>/dev/null; echo $?)" "$who: ... and its holder named (holder PID), alive"
	work=$(printf '%s\n' "$out" | sed -n 's/^work //p')
	echo agent > "$work/c"
	[ "$who" = nobody ] && chown -R nobody:nogroup "$work"
	run $AS $E "$GS" finish --state "$S" --attempt $id4
	is "$rc" 0 "$who: finish with an ignored dependency linked in"
	unlike "$err" "ignored|Use -f" "$who: ... no git add noise about ignored paths"
	is "$(cd "$D" && G ls-tree -r --name-only corral/44444444 | tr '\n' ' ')" ".gitignore c " "$who: ... the agent's file imported, the dependency not"
	# control: the literal exclude finish used before makes git say it
	(cd "$D" && G add -A --ignore-errors -- . ':(exclude,literal)node_modules' 2>"$B/noise"; G reset -q)
	like "$(cat "$B/noise")" "ignored by one of your .gitignore files" "$who: control: git add with a literal exclude of the ignored path is noisy"
	id5=55555555666666667777777788888888
	run $AS $E "$GS" create --state "$S" --attempt $id5 --dep node_modules "$D"
	work=$(printf '%s\n' "$out" | sed -n 's/^work //p')
	rm "$work/node_modules" && mkdir -p "$work/node_modules/own" && echo own > "$work/node_modules/own/x.js"
	: > "$work/.gitignore"
	[ "$who" = nobody ] && chown -R nobody:nogroup "$work"
	run $AS $E "$GS" finish --state "$S" --attempt $id5
	is "$(cd "$D" && G ls-tree -r --name-only corral/55555555 | tr '\n' ' ')" ".gitignore " "$who: its own install in place of the link, un-ignored: still left out"
	# usage
	run "$GS" finish --state "$S"
	is "$rc:$err" "2:git-stage: usage: finish needs --state (an absolute directory) and --attempt (an id)" "$who: finish without --attempt: usage (2)"
}

suite root
suite nobody

# an untouched checkout: finish runs no git for it (its entries' digest
# and ctimes are the set-up's, gitseen.h); each change that keeps what
# git's quick look compares nearly the same still makes a branch
U=$TMP/untouched
mkdir -p "$U/home/st" "$U/repo"
chmod 700 "$U/home/st"
(cd "$U/repo" && G init -q && echo one > a && mkdir d && echo two > d/b && git add a d &&
	git -c user.name=t -c user.email=t@t commit -q -m init)
S=$U/home/st E="env -i PATH=/usr/bin:/bin HOME=$U/home"
n=0
for change in none 'echo ONE > a.new && touch -r a a.new && mv a.new a' \
	'echo ONE > "$TMP/keep" && touch -r a "$TMP/keep" && cat "$TMP/keep" > a && touch -r "$TMP/keep" a' \
	'mv d/b d/c' 'chmod +x a' 'ln -s a l' 'mkdir e' 'rm d/b'; do
	n=$((n + 1))
	id=$(printf '%08d%024d' $n 0)
	run $E "$GS" create --state "$S" --attempt $id "$U/repo"
	work=$(printf '%s\n' "$out" | sed -n 's/^work //p')
	[ "$change" = none ] || (cd "$work" && eval "$change")
	# which programs finish runs: strace where there is one
	: > "$U/trace"
	if command -v strace >/dev/null; then
		run strace -f -e trace=execve -o "$U/trace" $E "$GS" finish --state "$S" --attempt $id
	else
		run $E "$GS" finish --state "$S" --attempt $id
	fi
	gits=$(grep -c 'execve("[^"]*/git"' "$U/trace")
	if [ "$change" = none ]; then
		like "$err" "the agent changed nothing" "untouched checkout: nothing to import"
		if command -v strace >/dev/null; then is "$gits" 0 "... and no git run for it"; else skip "no strace"; fi
	elif [ "$change" = 'mkdir e' ]; then
		# an empty directory is nothing git tracks: git looked, found nothing
		like "$err" "the agent changed nothing" "$change: git looked (an entry new), nothing to import"
		if command -v strace >/dev/null; then
			status_ok "$([ "$gits" -gt 0 ]; echo $?)" "... git was run for it"
		else
			skip "no strace"
		fi
	else
		like "$err" "git-stage: git: branch corral/$(printf %08d $n): " "$change: imported"
	fi
done

# --wait-input: the narrowed import touches nothing of the checkout (a
# nested repository it moves aside) until its input ends; control: without
# it, the same writer sees the repository moved while its input is open
for flag in --wait-input ''; do
	n=$((n + 1))
	id=$(printf '%08d%024d' $n 0)
	run $E "$GS" create --state "$S" --attempt $id "$U/repo"
	work=$(printf '%s\n' "$out" | sed -n 's/^work //p')
	git init -q "$work/nested"
	rm -f "$U/mid"
	if [ -n "$flag" ]; then
		run $E sh -c '{ sleep 0.3; [ -d "$1/nested/.git" ] && echo waiting > "$2"; printf g; } | "$3" finish --wait-input --state "$4" --attempt "$5"' \
			sh "$work" "$U/mid" "$GS" "$S" $id
		is "$(cat "$U/mid" 2>/dev/null)" waiting "--wait-input: the nested repository left in place while its input is open"
	else
		run $E sh -c '{ i=0; while [ -d "$1/nested/.git" ] && [ $i -lt 2000 ]; do sleep 0.05; i=$((i + 1)); done
			[ -d "$1/nested/.git" ] || echo moved > "$2"; } | "$3" finish --state "$4" --attempt "$5"' \
			sh "$work" "$U/mid" "$GS" "$S" $id
		is "$(cat "$U/mid" 2>/dev/null)" moved "control: without --wait-input it is moved aside while the input is open"
	fi
	like "$err" "nested repositories or special files were moved aside" "... moved aside by the import"
done

# --wait-input, its input ended without the go byte (the caller gone while
# the agent ran): nothing read, moved or removed, no branch; control: the
# same attempt with the byte (printf g) is imported
n=$((n + 1))
id=$(printf '%08d%024d' $n 0)
run $E "$GS" create --state "$S" --attempt $id "$U/repo"
work=$(printf '%s\n' "$out" | sed -n 's/^work //p')
git init -q "$work/nested"
echo nogo > "$work/nogo"
run $E "$GS" finish --wait-input --state "$S" --attempt $id </dev/null
is "$rc" 1 "--wait-input, no go byte: exit 1"
like "$err" "git-stage: warning: git: the import was not started: its input ended without the go byte" "... says why"
status_ok "$([ -d "$work/nested/.git" ] && [ -f "$work/nogo" ] && [ -f "$S/git/$id/state" ]; echo $?)" "... the checkout, its nested repository and the attempt's directory left as they were"
unlike "$(G -C "$U/repo" branch --list 'corral/*')" "corral/$(printf %08d $n)" "... no branch made"
run $E sh -c 'printf g | "$1" finish --wait-input --state "$2" --attempt "$3"' sh "$GS" "$S" $id
is "$rc" 0 "control: the same attempt, its input holding the go byte: imported"
like "$err" "git-stage: git: branch corral/$(printf %08d $n): " "... onto its branch"

# --wait-input ignores what a terminal sends its caller's group (INT, QUIT,
# HUP) while it waits: the go byte after them still imports; control: a
# signal it does not ignore (TERM) ends it waiting, nothing imported
for sig in INT TERM; do
	n=$((n + 1))
	id=$(printf '%08d%024d' $n 0)
	run $E "$GS" create --state "$S" --attempt $id "$U/repo"
	work=$(printf '%s\n' "$out" | sed -n 's/^work //p')
	echo changed >> "$work/a"
	rm -f "$U/go"; mkfifo "$U/go"
	$E "$GS" finish --wait-input --state "$S" --attempt $id < "$U/go" 2> "$U/ferr" &
	fp=$!
	exec 4> "$U/go"
	i=0; while [ -z "$(cat /proc/$fp/task/*/children 2>/dev/null)" ] && [ $i -lt 600 ]; do sleep 0.05; i=$((i + 1)); done
	sleep 0.2
	if [ $sig = INT ]; then
		for s in INT QUIT HUP; do kill -$s $fp $(cat /proc/$fp/task/*/children 2>/dev/null) 2>/dev/null; done
	else
		kill -TERM $fp $(cat /proc/$fp/task/*/children 2>/dev/null) 2>/dev/null
	fi
	sleep 0.2
	# (a subshell: to one that ended, the write is a SIGPIPE)
	(printf g >&4) 2>/dev/null
	exec 4>&-
	wait $fp
	rc=$?
	if [ $sig = INT ]; then
		is "$rc" 0 "--wait-input: INT, QUIT and HUP while it waits: ignored, its go byte imports"
		like "$(G -C "$U/repo" branch --list 'corral/*')" "corral/$(printf %08d $n)" "... onto its branch"
	else
		is "$rc" 143 "control: TERM while it waits ends it"
		unlike "$(G -C "$U/repo" branch --list 'corral/*')" "corral/$(printf %08d $n)" "... nothing imported"
	fi
done

# a repository whose only commit is empty: the checkout has no path, so the
# set of paths seen at the set-up is empty; create saves it and finish
# imports (the san build's UBSan ended create with 125 here: an empty set
# copied from a null pointer)
R=$TMP/empty
mkdir -p "$R/home/st" "$R/repo"
chmod 700 "$R/home/st"
(cd "$R/repo" && G init -q && git -c user.name=t -c user.email=t@t commit -q --allow-empty -m init)
S=$R/home/st E="env -i PATH=/usr/bin:/bin HOME=$R/home"
id=0123456789abcdef0123456789abcdef
run $E "$GS" create --state "$S" --attempt $id "$R/repo"
is "$rc" 0 "empty checkout: create"
[ -n "$err" ] && [ "$rc" -ne 0 ] && diag "$err"
work=$(printf '%s\n' "$out" | sed -n 's/^work //p')
like "$work" "^$S/git/co/" "empty checkout: ... prints the checkout"
[ -n "$work" ] && echo agent > "$work/c"
run $E "$GS" finish --state "$S" --attempt $id
is "$rc" 0 "empty checkout: finish"
is "$(cd "$R/repo" && G show corral/01234567:c 2>&1)" agent "empty checkout: ... the agent's file on the branch"

# a store not made yet (corral starts create before home-stage create,
# which makes it too): create makes it, private; the attempt repository
# has the real refs and HEAD (git for-each-ref runs beside checkout-index
# now), the checkout the files, and the real repository no new object
# (checkout-index reads them there directly)
N=$TMP/nostore
mkdir -p "$N/home" "$N/repo"
(cd "$N/repo" && G init -q && echo one > a && git add a && git -c user.name=t -c user.email=t@t commit -q -m init &&
	git tag v1 && git checkout -q -b side && echo two > b && git add b && git -c user.name=t -c user.email=t@t commit -q -m two)
objs() { find "$N/repo/.git/objects" -type f | sort | md5sum; }
before=$(objs)
S=$N/home/new/st E="env -i PATH=/usr/bin:/bin HOME=$N/home"
id=0123456789abcdef0123456789abcdef
run $E "$GS" create --state "$S" --attempt $id "$N/repo"
is "$rc" 0 "no store yet: create"
is "$(stat -c %a "$S" 2>&1)" 700 "... makes it, private"
work=$(printf '%s\n' "$out" | sed -n 's/^work //p')
is "$(cat "$work/a" "$work/b" 2>&1 | tr '\n' ' ')" "one two " "... the checkout holds the files"
is "$(G --git-dir="$work/.git" for-each-ref --format='%(objectname) %(refname)')" \
	"$(G -C "$N/repo" for-each-ref --format='%(objectname) %(refname)')" "... its repository the real refs"
is "$(G --git-dir="$work/.git" symbolic-ref HEAD 2>&1)" refs/heads/side "... and HEAD"
is "$(G -C "$work" status --porcelain 2>&1)" "" "... a clean checkout of it"
is "$(objs)" "$before" "... no object written into the real repository"
run $E "$GS" discard --state "$S" --attempt $id
is "$rc" 0 "... discarded"
done_testing
