CFLAGS_git-stage := -Igit-stage -I$(DEPLIB)/include
# gitnested's fingerprints: SHA-256 from the static BearSSL of mk/deps
LDLIBS_git-stage := $(DEPLIB)/lib/libbearssl.a
