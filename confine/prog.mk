CFLAGS_confine := -Iconfine
