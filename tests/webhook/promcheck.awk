# promcheck.awk - checks that its input is valid Prometheus text exposition
# format 0.0.4, as far as a scraper cares: every line is a comment, a
# HELP/TYPE line or a sample; samples have a valid name, valid labels and a
# float value, and belong to a family declared by a TYPE line before them;
# histogram buckets are cumulative and end in le="+Inf" equal to _count.
# Prints each problem as "LINE: problem" and exits 1 when there is one.

function problem(msg) {
	printf "%d: %s: %s\n", NR, msg, $0
	bad = 1
}

function family_of(name,    base) {
	if (name in type)
		return name
	base = name
	if (sub(/_(bucket|sum|count)$/, "", base) && type[base] == "histogram")
		return base
	return ""
}

BEGIN { bad = 0 }

/^$/ { next }

/^# TYPE / {
	if (NF != 4 || $3 !~ /^[a-zA-Z_:][a-zA-Z0-9_:]*$/ ||
	    $4 !~ /^(counter|gauge|histogram|summary|untyped)$/)
		problem("bad TYPE line")
	else if ($3 in type)
		problem("family declared twice")
	else if ($3 in seen)
		problem("TYPE after samples of the family")
	type[$3] = $4
	next
}

/^# HELP / {
	if (NF < 3 || $3 !~ /^[a-zA-Z_:][a-zA-Z0-9_:]*$/)
		problem("bad HELP line")
	next
}

/^#/ { next }

{
	line = $0
	if (!match(line, /^[a-zA-Z_:][a-zA-Z0-9_:]*/)) {
		problem("no metric name")
		next
	}
	name = substr(line, 1, RLENGTH)
	rest = substr(line, RLENGTH + 1)
	labels = ""
	if (substr(rest, 1, 1) == "{") {
		if (!match(rest, /^\{([a-zA-Z_][a-zA-Z0-9_]*="([^"\\]|\\.)*"(,[a-zA-Z_][a-zA-Z0-9_]*="([^"\\]|\\.)*")*,?)?\}/)) {
			problem("bad labels")
			next
		}
		labels = substr(rest, 2, RLENGTH - 2)
		rest = substr(rest, RLENGTH + 1)
	}
	if (rest !~ /^ [-+]?(([0-9]+(\.[0-9]*)?|\.[0-9]+)([eE][-+]?[0-9]+)?|Inf|NaN)( -?[0-9]+)?$/) {
		problem("bad value")
		next
	}
	split(substr(rest, 2), parts, " ")
	value = parts[1]
	fam = family_of(name)
	if (fam == "") {
		problem("sample of an undeclared family")
		next
	}
	seen[fam] = 1
	if (type[fam] == "counter" && value + 0 < 0)
		problem("negative counter")
	if (type[fam] == "histogram") {
		if (name == fam "_bucket") {
			if (!match(labels, /le="[^"]*"/)) {
				problem("bucket without le")
				next
			}
			le = substr(labels, RSTART + 4, RLENGTH - 5)
			if (fam in last_count && value + 0 < last_count[fam])
				problem("buckets not cumulative")
			last_count[fam] = value + 0
			if (le == "+Inf")
				inf[fam] = value + 0
			else if (fam in last_le && le + 0 <= last_le[fam])
				problem("bucket bounds not increasing")
			else
				last_le[fam] = le + 0
		} else if (name == fam "_count") {
			if (!(fam in inf))
				problem("histogram without a +Inf bucket")
			else if (inf[fam] != value + 0)
				problem("_count differs from the +Inf bucket")
		}
	}
}

END { exit bad }
