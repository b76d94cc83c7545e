CFLAGS_probe := -Iprobe
