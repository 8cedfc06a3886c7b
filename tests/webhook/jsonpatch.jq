# jsonpatch.jq - applies the RFC 6902 patch $p (add, remove, replace, move)
# to the input; the webhook suite's stand-in for `kubectl patch --local`
# when kubectl is not installed.

# The path of a JSON Pointer in $doc, array indexes as numbers.
def pointer_path($doc):
	(if . == "" then [] else .[1:] | split("/") | map(gsub("~1"; "/") | gsub("~0"; "~")) end) as $tokens
	| reduce $tokens[] as $t ({path: [], node: $doc};
		if (.node | type) == "array" then
			(if $t == "-" then (.node | length) else ($t | tonumber) end) as $i
			| .path += [$i] | .node = .node[$i]
		else
			.path += [$t] | .node = (.node[$t]?)
		end)
	| .path;

def apply_op($op):
	. as $doc
	| if $op.op == "add" then
		($op.path | pointer_path($doc)) as $path
		| ($doc | getpath($path[:-1])) as $parent
		| if ($parent | type) == "array" then
			setpath($path[:-1]; $parent[:$path[-1]] + [$op.value] + $parent[$path[-1]:])
		  else
			setpath($path; $op.value)
		  end
	elif $op.op == "remove" then
		delpaths([$op.path | pointer_path($doc)])
	elif $op.op == "replace" then
		setpath($op.path | pointer_path($doc); $op.value)
	elif $op.op == "move" then
		($op.from | pointer_path($doc)) as $from
		| getpath($from) as $value
		| delpaths([$from])
		| apply_op({op: "add", path: $op.path, value: $value})
	else
		error("unsupported operation \($op.op)")
	end;

reduce $p[] as $op (.; apply_op($op))
