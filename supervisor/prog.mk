CFLAGS_supervisor := -Isupervisor -I$(DEPLIB)/include
# corral policy approve: SHA-256 from the static BearSSL of mk/deps
LDLIBS_supervisor := $(DEPLIB)/lib/libbearssl.a
