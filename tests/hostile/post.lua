-- SPDX-FileCopyrightText: 2026 The gpumend authors
-- SPDX-License-Identifier: Apache-2.0
-- tests/hostile/post.lua - wrk script for tests/suites/faults.sh and
-- tests/soak.sh: every request POSTs the file named by $GPUMEND_BODY as
-- application/json to /mutate. With $GPUMEND_DELAY_MS, each connection
-- waits that long before each request (a paced load: wrk has no fixed
-- rate). At the end it prints one line,
--   statuses 200=N [CODE=N ...]
-- counting the answers by status (wrk's own summary lumps them together).
local path = os.getenv("GPUMEND_BODY")
local file = assert(io.open(path or "", "rb"), "GPUMEND_BODY: cannot read the body")
local body = file:read("*a")
file:close()
local pause = tonumber(os.getenv("GPUMEND_DELAY_MS") or "0")

local threads = {}

function setup(thread)
	table.insert(threads, thread)
end

function init(args)
	counts = {}
	wrk.method = "POST"
	wrk.path = "/mutate"
	wrk.body = body
	wrk.headers["Content-Type"] = "application/json"
end

if pause > 0 then
	function delay()
		return pause
	end
end

function response(status, headers, body)
	counts[status] = (counts[status] or 0) + 1
end

function done(summary, latency, requests)
	local all = {}
	for _, thread in ipairs(threads) do
		local c = thread:get("counts")
		for status, n in pairs(c) do
			all[status] = (all[status] or 0) + n
		end
	end
	local keys = {}
	for status in pairs(all) do
		table.insert(keys, status)
	end
	table.sort(keys)
	local line = "statuses"
	for _, status in ipairs(keys) do
		line = line .. " " .. status .. "=" .. all[status]
	end
	io.write(line .. "\n")
end
