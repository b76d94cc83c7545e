# sandbox-mcp links the static libcurl + BearSSL from mk/deps for
# session_fetch ($(DEPLIB): build/deps/musl, or build/deps/glibc for MODE=san).
# It ends a command's process tree through the supervisor's attempt cgroup
# code (supervisor/cgroup.c, and sweep.c's kill loop it uses), and bounds
# its memory and processes with corral's limits code (reslimit.c): linked from
# the supervisor's own objects, through a small archive, not copied.
SBX_SUPA := $(O)/sandbox-mcp/supervisor-cgroup.a
CFLAGS_sandbox-mcp := -I$(DEPLIB)/include
LDLIBS_sandbox-mcp := $(SBX_SUPA) $(DEPLIB)/lib/libcurl.a $(DEPLIB)/lib/libbearssl.a
# (a rule here would become make's default goal: keep it all)
.DEFAULT_GOAL := all
$(SBX_SUPA): $(O)/supervisor/cgroup.o $(O)/supervisor/sweep.o $(O)/supervisor/reslimit.o
	@mkdir -p $(@D)
	rm -f $@ && ar rcs $@ $^
$(BIN)/sandbox-mcp $(patsubst tests/unit/%.c,$(O)/tests/unit/%,$(wildcard tests/unit/sandbox-mcp/*.c)): $(SBX_SUPA)
