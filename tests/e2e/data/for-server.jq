# Objects as kubectl read them from a file (a JSON array), made ready for
# the e2e apiserver:
#   $ns       the namespace of objects that name none ("" to drop every
#             namespace, for the side created in the reference namespace)
#   $cronjob  the apiVersion to create batch/v1 CronJobs as ("" keeps
#             it): 1.20 serves CronJob as batch/v1beta1 only, with the
#             schema of batch/v1
# Prints a List.
map(if .kind == "CronJob" and .apiVersion == "batch/v1" and $cronjob != ""
    then .apiVersion = $cronjob else . end
  | if $ns == "" then del(.metadata.namespace)
    elif (.metadata.namespace // "") == "" then .metadata.namespace = $ns
    else . end)
| {apiVersion: "v1", kind: "List", items: .}
