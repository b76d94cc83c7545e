# corral: the only entry point. make [all|check|san|fuzz|bench|image|install|run|clean]
.SUFFIXES:

PREFIX ?= /usr/local
B := build
D := $(B)/deps
TOP := $(CURDIR)

# Two builds share the sources: the release (static, musl) and the sanitizer
# build (ASan+UBSan, glibc, clang). MODE picks one; `make san` recurses.
MODE ?= musl
ifeq ($(MODE),san)
CC := clang
O := $(B)/san
BIN := $(O)/bin
MODEFLAGS := -O1 -g -fsanitize=address,undefined -fno-sanitize-recover=all -fno-omit-frame-pointer
MODELDFLAGS := -fsanitize=address,undefined
DEPLIB := $(D)/glibc
else
CC := musl-gcc
O := $(B)/musl
BIN := bin
MODEFLAGS := -O2 -fstack-protector-strong -fstack-clash-protection -isystem $(D)/kinc
MODELDFLAGS := -static -Wl,-z,relro,-z,now -Wl,--gc-sections
DEPLIB := $(D)/musl
endif

# jsmn: strict mode and parent links in every unit, or the token layout differs.
CFLAGS := -std=c11 -D_GNU_SOURCE -DJSMN_STRICT -DJSMN_PARENT_LINKS \
	-Wall -Wextra -Werror -Wshadow -Wno-unused-parameter -Wformat=2 \
	-ffunction-sections -fdata-sections -Ilib $(MODEFLAGS) $(EXTRA_CFLAGS)
LDFLAGS := $(MODELDFLAGS) $(EXTRA_LDFLAGS)

# Every directory with a main.c is a program; supervisor/ builds bin/corral.
PROGDIRS := $(patsubst %/main.c,%,$(wildcard */main.c))
progname = $(if $(filter supervisor,$(1)),corral,$(1))
PROGS := $(foreach d,$(PROGDIRS),$(BIN)/$(call progname,$(d)))

LIBSRC := $(wildcard lib/*.c)
LIBOBJ := $(LIBSRC:%.c=$(O)/%.o)
LIBA := $(O)/libcorral.a

# Per-program extras (CFLAGS_<dir>, LDLIBS_<dir>) live beside the program.
-include $(wildcard */prog.mk)

UNITSRC := $(wildcard tests/unit/*/*.c)
UNITS := $(UNITSRC:tests/unit/%.c=$(O)/tests/unit/%)
HELPSRC := $(wildcard tests/helpers/*.c)
HELPERS := $(HELPSRC:tests/helpers/%.c=$(O)/tests/helpers/%)

all: $(PROGS)

# A plain make on a fresh clone: say what is missing instead of a compiler
# error (check, san and run install the dependencies themselves).
ifneq ($(filter-out deps check san clean run fuzz,$(or $(MAKECMDGOALS),all)),)
ifeq ($(and $(wildcard /usr/include/jsmn.h),$(wildcard $(DEPLIB)/lib/libcurl.a)),)
$(error the build needs its dependencies (jsmn, musl, static BearSSL and libcurl): run make deps, or make check)
endif
endif

$(O)/%.o: %.c $(wildcard lib/*.h */*.h)
	@mkdir -p $(@D)
	$(CC) $(CFLAGS) $(CFLAGS_$(patsubst %/,%,$(dir $<))) -c -o $@ $<

$(LIBA): $(LIBOBJ)
	@mkdir -p $(@D)
	rm -f $@ && ar rcs $@ $(LIBOBJ)

# objects of a program directory, main.o aside (unit tests link these)
dirobjs = $(patsubst %.c,$(O)/%.o,$(filter-out $(1)/main.c,$(wildcard $(1)/*.c)))

define PROG_RULE
$(BIN)/$(call progname,$(1)): $(O)/$(1)/main.o $(call dirobjs,$(1)) $(LIBA)
	@mkdir -p $$(@D)
	$$(CC) $$(LDFLAGS) -o $$@ $$^ $$(LDLIBS_$(1))
endef
$(foreach d,$(PROGDIRS),$(eval $(call PROG_RULE,$(d))))

# tests/unit/<dir>/<name>.c links <dir>'s objects (or only lib) and lib.
$(O)/tests/unit/%: tests/unit/%.c $(LIBA) tests/lib/tap.h
	@mkdir -p $(@D)
	$(CC) $(CFLAGS) -Itests/lib $(CFLAGS_$(firstword $(subst /, ,$*))) -o $@ $< \
		$(if $(filter lib,$(firstword $(subst /, ,$*))),,$(call dirobjs,$(firstword $(subst /, ,$*)))) \
		$(LIBA) $(LDFLAGS) $(LDLIBS_$(firstword $(subst /, ,$*)))
$(foreach u,$(UNITSRC),$(eval $(u:tests/unit/%.c=$(O)/tests/unit/%): $(call dirobjs,$(word 3,$(subst /, ,$(u))))))

$(O)/tests/helpers/%: tests/helpers/%.c $(LIBA)
	@mkdir -p $(@D)
	$(CC) $(CFLAGS) -Itests/lib -o $@ $< $(LIBA) $(LDFLAGS)

tests: $(UNITS) $(HELPERS)

deps:
	@mk/deps --check || mk/deps

# The suite: C unit tests and shell .t scripts, all run directly by prove.
SUITE = PROVE_FLAGS='$(PROVE_FLAGS)' mk/suite $(MODE) $(BIN) $(O) $(UNITS) $(wildcard tests/cli/*.t)
PROVE_FLAGS ?=
check: deps
	@$(MAKE) --no-print-directory all tests
	@$(SUITE)

san: deps
	@mk/deps --san
	@$(MAKE) --no-print-directory MODE=san all tests
	@$(MAKE) --no-print-directory MODE=san check-only

check-only:
	@$(SUITE)

bench: all tests
	@for b in bench/*; do case $$b in *.*) continue ;; esac; \
		CORRAL_BIN=$(abspath $(BIN)) "$$b" || exit 1; done

fuzz:
	@$(MAKE) --no-print-directory -f fuzz/fuzz.mk

# OCI images from the static binaries (mk/image): FROM scratch and Debian.
image: all
	@mk/deps --containers
	@CORRAL_BIN=$(abspath $(BIN)) mk/image

run: deps all
	@exec $(BIN)/corral run -- "$${SHELL:-/bin/sh}"

install: all
	install -d $(DESTDIR)$(PREFIX)/bin $(DESTDIR)$(PREFIX)/libexec/corral $(DESTDIR)$(PREFIX)/share/man/man1
	for p in $(PROGS); do \
		case $$p in */corral) install -m 0755 $$p $(DESTDIR)$(PREFIX)/bin/ ;; \
		*) install -m 0755 $$p $(DESTDIR)$(PREFIX)/libexec/corral/ ;; esac; done
	for m in $(wildcard */*.1); do install -m 0644 $$m $(DESTDIR)$(PREFIX)/share/man/man1/; done
	@# the browser's Playwright MCP (mk/npm browser), where corral looks for
	@# it: beside its steps; Debian's chromium comes from mk/deps --browser
	if [ -f $(B)/npm/browser/node_modules/@playwright/mcp/cli.js ]; then \
		rm -rf $(DESTDIR)$(PREFIX)/libexec/corral/browser && \
		install -d $(DESTDIR)$(PREFIX)/libexec/corral/browser && \
		cp -RL $(B)/npm/browser/node_modules $(DESTDIR)$(PREFIX)/libexec/corral/browser/ && \
		chmod -R a+rX,go-w $(DESTDIR)$(PREFIX)/libexec/corral/browser; \
	else echo "make install: no browser (\"browser\" in a policy needs mk/deps --browser and mk/npm browser @playwright/mcp@0.0.83 first)"; fi

clean:
	rm -rf bin $(B)/musl $(B)/san

.PHONY: all tests deps check san check-only bench fuzz image run install clean
