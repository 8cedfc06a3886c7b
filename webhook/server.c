/* webhook/server.c - not written yet. */
typedef int server_placeholder;
