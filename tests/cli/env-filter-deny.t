#!/bin/sh
# env-filter: the never-pass list holds whoever asks, through every layer.
. "$CORRAL_TOP/tests/lib/tap.sh"
EF=$CORRAL_BIN/env-filter
D=$T/helpers/dumpenv
umask 077

names="http_proxy HTTPS_PROXY Ftp_Proxy ALL_PROXY no_proxy NO_PROXY rsync_proxy NODE_OPTIONS
LD_PRELOAD LD_LIBRARY_PATH LD_AUDIT DYLD_INSERT_LIBRARIES BASH_ENV ENV PROMPT_COMMAND
PYTHONSTARTUP PYTHONINSPECT PERL5OPT PERL5LIB RUBYOPT JAVA_TOOL_OPTIONS _JAVA_OPTIONS
GIT_CONFIG GIT_CONFIG_GLOBAL GIT_CONFIG_COUNT GIT_EXEC_PATH GIT_SSH GIT_SSH_COMMAND
GIT_ASKPASS SSH_ASKPASS SSH_ASKPASS_REQUIRE SSH_AUTH_SOCK"

reason() {
	case $1 in
	*_[Pp][Rr][Oo][Xx][Yy]) echo "proxy variable: redirects the program's traffic" ;;
	NODE_OPTIONS) echo "loads code into every node process" ;;
	LD_*|DYLD_*) echo "dynamic loader variable: loads code into every program" ;;
	BASH_ENV) echo "runs a script in every non-interactive bash" ;;
	ENV) echo "runs a script in every interactive sh" ;;
	PROMPT_COMMAND) echo "runs a command at every bash prompt" ;;
	PYTHONSTARTUP) echo "runs a script in every interactive python" ;;
	PYTHONINSPECT) echo "turns python scripts interactive" ;;
	PERL5OPT) echo "injects options and modules into every perl" ;;
	PERL5LIB) echo "puts modules before perl's own" ;;
	RUBYOPT) echo "injects options and libraries into every ruby" ;;
	*JAVA*) echo "injects options and agents into every JVM" ;;
	GIT_CONFIG*) echo "git configuration from outside: runs commands" ;;
	GIT_EXEC_PATH) echo "replaces git's own programs" ;;
	GIT_SSH*) echo "runs a command for every git ssh transport" ;;
	*ASKPASS*) echo "runs a command that answers credential prompts" ;;
	SSH_AUTH_SOCK) echo "the user's ssh agent: signs with the user's keys" ;;
	esac
}
hint="env-filter: hint: the never-pass list is in env-filter(1); no option lets it through"

for n in $names; do
	why=$(reason "$n")
	for how in -k -s -p -f -F; do
		rm -f "$TMP/ran"
		case $how in
		# set but empty: the dynamic loader of a sanitizer build ignores it
		-k) run env -i "$n=" "$EF" -k "$n" -- /usr/bin/touch "$TMP/ran"; where=-k ;;
		-s|-p) run env -i "$EF" "$how" "$n=v" -- /usr/bin/touch "$TMP/ran"; where=$how ;;
		-f) printf 'OK=1\n%s=v\n' "$n" >"$TMP/e"
			run env -i "$EF" -f "$TMP/e" -- /usr/bin/touch "$TMP/ran"; where="$TMP/e:2" ;;
		-F) printf 'OK=1\n%s=v\n' "$n" >"$TMP/e"
			run env -i "$EF" -F 3 -- /usr/bin/touch "$TMP/ran" 3<"$TMP/e"; where="fd 3:2" ;;
		esac
		[ ! -e "$TMP/ran" ]; ran=$?
		is "$rc:$ran:$err" "125:0:env-filter: fatal: $where: $n never passes: $why
$hint" "$how $n: refused by name, exit 125, nothing run"
	done
done

# --baseline never brings them, and asking for nothing by name is no error
run env -i PATH=/usr/bin:/bin HOME=/h http_proxy=http://p HTTPS_PROXY=http://p NODE_OPTIONS=x \
	LD_PRELOAD= BASH_ENV=/x ENV=/x SSH_AUTH_SOCK=/s GIT_CONFIG_GLOBAL=/g \
	"$EF" --baseline -- "$D"
is "$rc:$out:$err" "0:PATH=/usr/bin:/bin
HOME=/h:" "--baseline passes none of them"

# near misses pass
run env -i "$EF" -s PROXY=1 -s ENVIRONMENT=1 -s LDFLAGS=1 -s GIT_AUTHOR_NAME=a -s NODE_PATH=/n -s env=1 -- "$D"
is "$rc:$err" "0:" "PROXY ENVIRONMENT LDFLAGS GIT_AUTHOR_NAME NODE_PATH env pass"

done_testing
