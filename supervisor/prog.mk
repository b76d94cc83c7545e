CFLAGS_supervisor := -Isupervisor
