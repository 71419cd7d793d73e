build/obj/host/tree.o: host/tree.c host/pt_internal.h include/pt/pt.h \
 include/pt/pt_version.h include/pt/pt_dev_buf.h
host/pt_internal.h:
include/pt/pt.h:
include/pt/pt_version.h:
include/pt/pt_dev_buf.h:
