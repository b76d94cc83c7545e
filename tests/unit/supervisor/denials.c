/* denials_parse / denials_filter over records as the kernel prints them. */
#include <stdlib.h>
#include <string.h>

#include "denials.h"
#include "tap.h"

static struct denials ds;

static void
rec(int type, const char *text)
{
	denials_parse(&ds, type, text, strlen(text), 2656);
}

int
main(void)
{
	/* an event: access, our domain's allocation, the process */
	rec(1423, "audit(1796116919.076:28): domain=1e6e2cf3d blockers=fs.read_file path=\"/etc/shadow\" dev=\"vda\" ino=409603");
	rec(1424, "audit(1796116919.076:28): domain=1e6e2cf3d status=allocated mode=enforcing pid=2656 uid=0 exe=\"/work/bin/confine\" comm=\"confine\"");
	rec(1300, "audit(1796116919.076:28): arch=c000003e syscall=257 success=no exit=-13 ppid=2432 pid=2657 uid=0 comm=\"cat\" exe=\"/usr/bin/cat\" key=(null)");
	is_int(ds.n, 1, "one access record kept");
	is_str(ds.domain, "1e6e2cf3d", "the domain the chain's pid allocated is ours");
	is_str(ds.d[0].object, "/etc/shadow", "the path");
	is_str(ds.d[0].blockers, "fs.read_file", "the blockers");
	is_int(ds.d[0].pid, 2657, "the pid from the event's SYSCALL record");
	is_str(ds.d[0].exe, "/usr/bin/cat", "the exe from the event's SYSCALL record");
	is_int(ds.d[0].when_ms, 1796116919076LL, "the record's time in ms");
	/* a path with a space comes hex-encoded */
	rec(1423, "audit(1796116920.001:29): domain=1e6e2cf3d blockers=fs.write_file,fs.truncate path=2F746D702F6120622E74787420 dev=\"vda\" ino=1");
	is_str(ds.d[1].object, "/tmp/a b.txt ", "a hex-encoded path is decoded");
	is_str(ds.d[1].blockers, "fs.write_file,fs.truncate", "several blockers");
	/* a TCP connect */
	rec(1423, "audit(1796116920.002:30): domain=1e6e2cf3d blockers=net.connect_tcp daddr=127.0.0.1 dest=5432");
	is_str(ds.d[2].object, "port 5432", "a port");
	/* another domain (a sibling run's, or one the agent made inside) */
	rec(1423, "audit(1796116920.003:31): domain=99999 blockers=fs.read_file path=\"/x\"");
	rec(1424, "audit(1796116920.003:31): domain=99999 status=allocated mode=enforcing pid=7 exe=\"/x\"");
	is_str(ds.domain, "1e6e2cf3d", "another pid's domain is not taken for ours");
	/* noise and malformed records */
	rec(1300, "no stamp at all");
	rec(1423, "audit(garbage");
	rec(1423, "audit(1.2:3): blockers=fs.read_file");	/* no domain */
	rec(1327, "audit(1796116920.004:32): proctitle=2F62696E");
	is_int(ds.n, 4, "malformed and unrelated records are not kept");
	denials_filter(&ds);
	is_int(ds.n, 3, "the filter keeps our domain's denials only");
	is_str(ds.d[2].object, "port 5432", "in order");
	/* no domain seen: nothing is ours */
	memset(&ds, 0, sizeof ds);
	rec(1423, "audit(1.2:3): domain=5 blockers=fs.read_file path=\"/y\"");
	denials_filter(&ds);
	is_int(ds.n, 0, "without our domain's allocation nothing is kept");
	/* with a broker, confine's child restricts: the chain's pid names it */
	memset(&ds, 0, sizeof ds);
	rec(1424, "audit(1.2:4): domain=a1 status=allocated mode=enforcing pid=2657 uid=0 exe=\"/work/bin/confine\" comm=\"confine\"");
	is_str(ds.domain, "", "a domain of another pid is not ours yet");
	rec(1005, "audit(1.2:5): pid=2700 uid=0 auid=4294967295 ses=4294967295 msg='corral-confine-child child=2657'");
	is_str(ds.domain, "", "a child named by a pid not the chain's is not taken (control)");
	rec(1005, "audit(1.2:6): pid=2656 uid=0 auid=4294967295 ses=4294967295 msg='corral-confine-child child=2657'");
	is_str(ds.domain, "a1", "the domain of the child the chain's pid named, record seen first");
	memset(&ds, 0, sizeof ds);
	rec(1005, "audit(1.2:5): pid=2656 uid=0 auid=4294967295 ses=4294967295 msg='corral-confine-child child=2657'");
	rec(1424, "audit(1.2:6): domain=b2 status=allocated mode=enforcing pid=2999 uid=0 exe=\"/x\"");
	is_str(ds.domain, "", "another pid's domain is not ours (control)");
	rec(1424, "audit(1.2:7): domain=a1 status=allocated mode=enforcing pid=2657 uid=0 exe=\"/work/bin/confine\"");
	is_str(ds.domain, "a1", "the named child's domain, named first");
	/* bounded */
	memset(&ds, 0, sizeof ds);
	for (int i = 0; i < DENIALS_MAX + 5; i++)
		rec(1423, "audit(1.2:3): domain=5 blockers=fs.read_file path=\"/y\"");
	is_int(ds.n, DENIALS_MAX, "at most DENIALS_MAX kept");
	is_int(ds.more, 5, "the rest counted");
	return done_testing();
}
