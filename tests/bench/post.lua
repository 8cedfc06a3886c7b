-- SPDX-FileCopyrightText: 2026 The gpumend authors
-- SPDX-License-Identifier: Apache-2.0
-- tests/bench/post.lua - wrk script for tests/bench/webhook.sh: every
-- request POSTs the file named by $BENCH_BODY as application/json.
local path = os.getenv("BENCH_BODY")
local file = assert(io.open(path or "", "rb"), "BENCH_BODY: cannot read the body")
wrk.method = "POST"
wrk.body = file:read("*a")
file:close()
wrk.headers["Content-Type"] = "application/json"
