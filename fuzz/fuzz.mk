# make fuzz: libFuzzer harnesses over the pure parsers (clang, glibc, ASan+UBSan).
#   fuzz/<dir>/<name>.c links <dir>'s non-main sources (or only lib/) and lib/.
#   FUZZ_SECONDS (default 30) bounds each run; corpora stay in build/fuzz/.
#   FUZZ_ONLY=fuzz/x/y.c runs that harness alone; fuzz/x/y.dict, when there,
#   is its libFuzzer dictionary (keys a parser knows).
FUZZ_SECONDS ?= 30
CC := clang
F := build/fuzz
CFLAGS := -std=c11 -D_GNU_SOURCE -DJSMN_STRICT -DJSMN_PARENT_LINKS -Wall -Wextra -Werror \
	-Wshadow -Wno-unused-parameter -Wformat=2 -g -O1 -Ilib -fsanitize=fuzzer,address,undefined
SRCS := $(if $(FUZZ_ONLY),$(FUZZ_ONLY),$(wildcard fuzz/*/*.c))
BINS := $(SRCS:fuzz/%.c=$(F)/%)
LIBSRC := $(wildcard lib/*.c)
srcs_of = $(if $(filter lib,$(1)),,$(filter-out $(1)/main.c,$(wildcard $(1)/*.c)))
# mcp-proxy's other sources need libcurl: its harnesses link the pure files only
FUZZSRC_mcp-proxy/rpc := mcp-proxy/methods.c mcp-proxy/toolallow.c
FUZZSRC_mcp-proxy/sse := mcp-proxy/sse.c
# sandbox-mcp's too (fetch.c): the configuration and the workspace path check
FUZZSRC_sandbox-mcp/config := sandbox-mcp/config.c sandbox-mcp/jw.c sandbox-mcp/wspath.c sandbox-mcp/args.c
FUZZSRC_sandbox-mcp/pkgspec := sandbox-mcp/pkgspec.c
FUZZSRC_sandbox-mcp/assets := sandbox-mcp/assets.c
FUZZSRC_sandbox-mcp/toml := sandbox-mcp/toml.c
# egress-proxy's request head parser alone (serve.c is the socket side)
FUZZSRC_egress-proxy/request := egress-proxy/request.c
# supervisor's and git-stage's sources take SHA-256 from mk/deps' static BearSSL (the glibc
# build of `mk/deps --san` when there; the musl one's hash code is plain C)
FUZZDEP := $(firstword $(wildcard build/deps/glibc build/deps/musl))
FUZZLIB_supervisor := -I$(FUZZDEP)/include $(FUZZDEP)/lib/libbearssl.a
FUZZLIB_git-stage := $(FUZZLIB_supervisor)
FUZZLIB_runfiles := $(FUZZLIB_supervisor)
fuzz_srcs = $(if $(FUZZSRC_$(1)),$(FUZZSRC_$(1)),$(call srcs_of,$(firstword $(subst /, ,$(1)))))

all: $(BINS)
	@for b in $(BINS); do \
		c=$(F)/corpus/$$(echo $$b | sed 's|$(F)/||; s|/|-|g'); mkdir -p $$c; \
		echo "fuzz: $$b for $(FUZZ_SECONDS)s"; \
		d=fuzz/$$(echo $$b | sed 's|$(F)/||').dict; [ -f $$d ] && d=-dict=$$d || d=; \
		$$b -max_total_time=$(FUZZ_SECONDS) -max_len=65536 -print_final_stats=0 $$d $$c >$$c.log 2>&1 \
			|| { tail -40 $$c.log; exit 1; }; \
		grep -E '^Done [0-9]+ runs' $$c.log | tail -1; \
	done

$(F)/%: fuzz/%.c $(LIBSRC) $(wildcard lib/*.h */*.h)
	@mkdir -p $(@D)
	$(CC) $(CFLAGS) -I$(firstword $(subst /, ,$*)) -o $@ $< $(call fuzz_srcs,$*) $(LIBSRC) $(FUZZLIB_$(firstword $(subst /, ,$*)))

.PHONY: all
