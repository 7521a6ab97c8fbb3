// SQLite for LeashOutbox on Linux, from the system: /usr/include/sqlite3.h and libsqlite3
// (Debian's libsqlite3-dev). Apple platforms import their SDK's SQLite3 module instead. No
// package dependency is needed.
#ifndef LEASH_CSQLITE_H
#define LEASH_CSQLITE_H

#include <sqlite3.h>

#endif
