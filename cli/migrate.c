/* cli/migrate.c - not written yet. */
typedef int migrate_placeholder;
