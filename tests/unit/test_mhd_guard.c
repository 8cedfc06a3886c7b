/* SPDX-FileCopyrightText: 2026 The gpumend authors */
/* SPDX-License-Identifier: Apache-2.0 */
/*
 * test_mhd_guard.c - the webhook's epoll_ctl() (webhook/mhd_guard.c): a
 * removal of a descriptor that is not in the set is done, not an error,
 * so that libmicrohttpd's quiesce, racing its own workers, cannot abort
 * the process; every other answer is the C library's.
 */
#include <errno.h>
#include <sys/epoll.h>
#include <unistd.h>

#include "harness.h"

TEST(mhd_guard_epoll_del_of_absent_fd_is_done)
{
	int ep = epoll_create1(EPOLL_CLOEXEC);
	int fds[2];
	struct epoll_event ev = { .events = EPOLLIN };

	CHECK(ep >= 0);
	CHECK(pipe(fds) == 0);
	if (ep < 0)
		return;
	/* never added: the C library says ENOENT, the guard says done */
	CHECK(epoll_ctl(ep, EPOLL_CTL_DEL, fds[0], NULL) == 0);
	/* added, removed, removed again (the race's second removal) */
	CHECK(epoll_ctl(ep, EPOLL_CTL_ADD, fds[0], &ev) == 0);
	errno = 0;
	CHECK(epoll_ctl(ep, EPOLL_CTL_ADD, fds[0], &ev) == -1 && errno == EEXIST);
	CHECK(epoll_ctl(ep, EPOLL_CTL_DEL, fds[0], NULL) == 0);
	CHECK(epoll_ctl(ep, EPOLL_CTL_DEL, fds[0], NULL) == 0);
	/* what is not ENOENT on a removal still fails */
	errno = 0;
	CHECK(epoll_ctl(ep, EPOLL_CTL_MOD, fds[0], &ev) == -1 && errno == ENOENT);
	errno = 0;
	CHECK(epoll_ctl(-1, EPOLL_CTL_DEL, fds[0], NULL) == -1 && errno == EBADF);
	close(fds[0]);
	close(fds[1]);
	close(ep);
}
