# An object (or a List) as the apiserver returned it, reduced to what the
# comparison of the e2e suite looks at: the fields the server sets (or the
# scheduler, spec.nodeName; or the service IP allocator) are dropped, and so
# is the namespace (the two sides live in different namespaces) and the
# webhook's record annotation. Defaults stay: both sides went through the
# apiserver's defaulting. Prints an array sorted by kind and name.
def norm:
	del(.metadata.uid, .metadata.creationTimestamp, .metadata.resourceVersion,
	    .metadata.managedFields, .metadata.generation, .metadata.selfLink,
	    .metadata.namespace, .status)
	| if .metadata.annotations then
		.metadata.annotations |= del(.["gpumend.io/mutations"])
	  else . end
	| if .metadata.annotations == {} then del(.metadata.annotations) else . end
	| if .kind == "Pod" then del(.spec.nodeName) else . end
	| if .kind == "Service" then del(.spec.clusterIP, .spec.clusterIPs) else . end;

(if .kind == "List" then .items else [.] end) | map(norm) | sort_by(.kind, .metadata.name)
