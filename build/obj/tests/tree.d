build/obj/tests/tree.o: tests/tree.c tests/common.h include/pt/pt.h \
 include/pt/pt_version.h include/pt/pt_dev_buf.h
tests/common.h:
include/pt/pt.h:
include/pt/pt_version.h:
include/pt/pt_dev_buf.h:
