# SPDX-FileCopyrightText: 2026 The gpumend authors
# SPDX-License-Identifier: Apache-2.0
# answer.jq - the checks of a gpumend-webhook answer, for
# tests/suites/hostile_webhook.sh (definitions only: the suite prepends
# those of tests/webhook/jsonpatch.jq, for apply_op, and appends the call).
#
# verdict(check; $rq; $r; $ids; $external): $r is the answer to the
# request $rq[0] ($rq empty when jq cannot read the request, nested too
# deep: then $ids = [apiVersion, uid]). The answer must be a well-formed
# AdmissionReview for the request's version and uid, allowed (the default
# failurePolicy allows), with patch and patchType together, warnings of at
# most 120 bytes each and 4 KiB in all, no internal error, and `check`
# true of it. A patch must decode to a JSON array that applies to the
# object ($external: left to kubectl, jq being too slow for 10,000
# operations).
#
# Outputs "ok"; "ERR: why"; "again" and the request that reviews the
# patched object again (the caller checks it gets no patch); or
# "external" and the patch.
def verdict(check; $rq; $r; $ids; $external):
	(if ($rq | length) > 0 then [$rq[0].apiVersion, $rq[0].request.uid]
	 else $ids end) as [$version, $uid]
	| if ($r | type) != "object" or $r.apiVersion != $version or
	     $r.kind != "AdmissionReview" or $r.response.uid != $uid or
	     $r.response.allowed != true or
	     (($r.response | has("patch")) != ($r.response | has("patchType"))) then
		"ERR: not a well-formed allowed answer: \($r | tojson | .[:300])"
	  elif ([$r.response.warnings[]? | utf8bytelength]
		| all(. <= 120) and (add // 0) <= 4096) | not then
		"ERR: warnings over their caps: \($r.response.warnings | tojson | .[:300])"
	  elif [$r.response.warnings[]? | select(contains("internal error"))]
		| length > 0 then
		"ERR: internal error: \($r.response.warnings | tojson | .[:300])"
	  elif (try ($r | check) catch false) | not then
		"ERR: check fails on \($r.response | del(.patch) | tojson | .[:400])"
	  elif ($r.response | has("patch") | not) then
		"ok"
	  else
		(try ($r.response.patch | @base64d | fromjson) catch null) as $p
		| if ($p | type) != "array" or ($p | length) == 0 then
			"ERR: the patch is not a base64 JSON array"
		  elif $external then
			"external", $p
		  else
			(try ($rq[0].request.object
			      | reduce $p[] as $op (.; apply_op($op)))
			 catch null) as $o
			| if ($o | type) != "object" then
				"ERR: the patch does not apply to the object"
			  else
				"again", ($rq[0] | .request.uid += "-again"
					  | .request.object = $o)
			  end
		  end
	  end;
