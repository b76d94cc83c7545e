#!/bin/sh
# mk/spawn-audit: fails naming each bad site of a deliberately bad tree,
# passes on the real tree, and fails again when a new unlisted site appears.
. "$CORRAL_TOP/tests/lib/tap.sh"
A=$CORRAL_TOP/mk/spawn-audit
X=$CORRAL_TOP/tests/fixtures/spawn-bad

run "$A" "$X"
is "$rc" 1 "the bad fixture fails"
P="spawn-audit: fatal:"
for want in \
	"$P badprog/main.c:16: system() in run_shell(): runs a shell with environ" \
	"$P badprog/main.c:22: popen() in pipe_cmd(): runs a shell with environ" \
	"$P badprog/main.c:28: execvp() in search(): passes environ and searches the caller's PATH" \
	"$P badprog/main.c:34: execve() in pass_environ(): passes environ as the environment" \
	"$P badprog/main.c:42: posix_spawnp() in spawn_p(): searches the caller's PATH" \
	"$P badprog/main.c:50: posix_spawn() in spawn_null(): passes NULL as the environment" \
	"$P badprog/main.c:57: SYS_execve() in raw(): passes no explicit environment" \
	"$P lib/helper.c:4: execl() in spawn_l(): passes no explicit environment" \
	"$P $X/mk/spawn-exceptions:3: stale exception: no execvp() in gone() of badprog/main.c" \
	"$P $X/mk/spawn-exceptions:4: an exception needs FILE FUNCTION CALL REASON"
do
	printf '%s\n' "$err" | grep -qxF -- "$want"
	status_ok $? "names: ${want#"$P "}"
done
is "$(printf '%s\n' "$err" | grep -c fatal)" 10 "no other findings: good, listed, commented, quoted and tests/ sites pass"
unlike "$err" "good|listed|ignored|comment|string" "explicit and listed sites are not named"
is "$(printf '%s\n' "$err" | tail -n1)" "spawn-audit: hint: pass an explicit environment (execve, exec_env, posix_spawn with envp), or list FILE FUNCTION CALL REASON in mk/spawn-exceptions" "a hint ends the report"

run "$A" "$CORRAL_TOP"
is "$rc:$err" "0:" "the real tree passes"
like "$out" "^spawn-audit: [0-9]+ files, every spawn explicit" "and says so"

# a copy of the real tree with one new unlisted spawn fails, naming it
mkdir "$TMP/tree" "$TMP/tree/mk"
for f in "$CORRAL_TOP"/*/*.c; do
	d=$(basename "$(dirname "$f")")
	case $d in tests|build) continue ;; esac
	mkdir -p "$TMP/tree/$d" && cp "$f" "$TMP/tree/$d/"
done
cp "$CORRAL_TOP/mk/spawn-exceptions" "$TMP/tree/mk/"
run "$A" "$TMP/tree"
is "$rc" 0 "the copy passes"
mkdir "$TMP/tree/newprog"
printf '#include <unistd.h>\n\nstatic void\nrestart(char *argv[])\n{\n\tif (fork() == 0)\n\t\texecv(argv[0], argv);\n}\n' >"$TMP/tree/newprog/main.c"
run "$A" "$TMP/tree"
is "$rc" 1 "a new fork+execv fails the audit"
like "$err" "^spawn-audit: fatal: newprog/main.c:7: execv\(\) in restart\(\): passes no explicit environment" "naming file, line, call and function"
echo "newprog/main.c restart execv re-exec of itself, environment kept on purpose" >>"$TMP/tree/mk/spawn-exceptions"
run "$A" "$TMP/tree"
is "$rc" 0 "listed with a reason, it passes"

done_testing
