# sandbox-mcp links the static libcurl + BearSSL from mk/deps for
# session_fetch ($(DEPLIB): build/deps/musl, or build/deps/glibc for MODE=san).
# Its commands run under keeper(1), which ends each one's process tree and
# bounds its memory and processes (lib/reslimit.c, lib/cgroup.c).
CFLAGS_sandbox-mcp := -I$(DEPLIB)/include
LDLIBS_sandbox-mcp := $(DEPLIB)/lib/libcurl.a $(DEPLIB)/lib/libbearssl.a
