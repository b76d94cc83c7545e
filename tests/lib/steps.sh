# Finding corral's steps among its children, for tests that act on one
# while it runs (corral-git-go.t, corral-finish-go.t).

# step_of PID WORDS: the pid of PID's child whose command line has WORDS
step_of() {
	for c in $(cat /proc/"$1"/task/*/children 2>/dev/null); do
		case $(tr '\0' ' ' < /proc/"$c"/cmdline 2>/dev/null) in
		*"$2"*) echo "$c"; return 0 ;;
		esac
	done
	return 1
}
# child_named PID NAME: the pid of PID's child NAME
child_named() {
	for c in $(cat /proc/"$1"/task/*/children 2>/dev/null); do
		[ "$(cat /proc/"$c"/comm 2>/dev/null)" = "$2" ] && { echo "$c"; return 0; }
	done
	return 1
}
# wait_for CMD...: until CMD succeeds (bounded: 30 s)
wait_for() {
	i=0
	while ! "$@" && [ $i -lt 600 ]; do sleep 0.05; i=$((i + 1)); done
}
# gone PID: ended (a zombie too: under a subreaper such as the suite's,
# nothing reaps it at once)
gone() { case $(sed 's/.*) //' /proc/"$1"/stat 2>/dev/null | cut -c1) in ''|Z) return 0 ;; esac; return 1; }
