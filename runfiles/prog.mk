# SHA-256 of each matching file, from the static BearSSL of mk/deps
CFLAGS_runfiles := -Irunfiles -I$(DEPLIB)/include
LDLIBS_runfiles := $(DEPLIB)/lib/libbearssl.a
