# What `kubectl create/get -o json` printed (read with jq -s: objects and
# Lists), reduced to what the comparison of the e2e suite looks at, as an
# array sorted by kind and name. Dropped: the fields the server sets (or the
# scheduler, spec.nodeName; or the service IP allocator; or the deployment
# controller, the revision annotation), the namespace (the
# two sides live in different namespaces), the webhook's record annotation,
# and the labels a Job gets from its uid: the object's own uid becomes
# "<uid>" wherever the server copied it (a Job's controller-uid selector),
# and metadata.labels of a Job loses controller-uid and job-name (1.20's
# defaulting shares the template's label map with the Job's, so the
# selector labels leak into metadata.labels unless a webhook's patch, by
# decoding the object again, separated them). Defaults stay: both sides
# went through the apiserver's defaulting.
def norm:
	.metadata.uid as $uid
	| walk(if . == $uid then "<uid>" else . end)
	# a name the apiserver generated differs from run to run: the prefix
	# it was asked for stands for it, here and in the order below
	| if .metadata.generateName then
		.metadata.name = .metadata.generateName + "<generated>"
	  else . end
	| del(.metadata.uid, .metadata.creationTimestamp, .metadata.resourceVersion,
	    .metadata.managedFields, .metadata.generation, .metadata.selfLink,
	    .metadata.namespace, .status)
	| if .metadata.annotations then
		.metadata.annotations |= del(.["gpumend.io/mutations"],
			.["deployment.kubernetes.io/revision"])
	  else . end
	| if .kind == "Job" and .metadata.labels then
		.metadata.labels |= del(.["controller-uid"], .["job-name"])
	  else . end
	| if .metadata.annotations == {} then del(.metadata.annotations) else . end
	| if .metadata.labels == {} then del(.metadata.labels) else . end
	| if .kind == "Pod" then del(.spec.nodeName) else . end
	| if .kind == "Service" then del(.spec.clusterIP, .spec.clusterIPs) else . end;

[.[] | if .kind == "List" then .items[] else . end] | map(norm) | sort_by(.kind, .metadata.name)
