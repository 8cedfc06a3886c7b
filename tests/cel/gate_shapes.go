// SPDX-FileCopyrightText: 2026 The gpumend authors
// SPDX-License-Identifier: Apache-2.0
// gate_shapes.go - the kinds the gate makes objects of, and where each
// holds its pods: every row of rules/pod_shapes.c, written here again
// from the APIs themselves (so that the gate checks the table, not
// itself), with the pod templates those APIs have that the table may
// lack (a RayJob's submitterPodTemplate, the v1alpha1 Kubeflow jobs),
// plus a kind the registration does not cover.
package main

// podForm is how a pod is written at a path.
type podForm int

const (
	formSpec   podForm = iota // a PodSpec: containers, initContainers...
	formArgo                  // an Argo template: container, script, containerSet...
	formKServe                // a KServe component: a PodSpec and model/framework members
	formTekton                // a Tekton task spec: steps, sidecars, stepTemplate
)

// keep is what the API server keeps of what the client sent, at the
// places of a kind the gate writes to.
type keep int

const (
	// keepTyped: a built-in kind, decoded into its Go types: valid
	// shapes only, no null, no wrong type, no empty optional member.
	keepTyped keep = iota
	// keepSchema: a custom resource with a structural schema: unknown
	// members are pruned and nulls of non-nullable members dropped at
	// decoding, but empty mappings and lists stay (validation comes
	// after the mutating webhooks).
	keepSchema
	// keepOpen: a custom resource that keeps unknown fields (Argo
	// Workflows, Tekton, a custom resource of webhook.customResources):
	// whatever JSON the client sent.
	keepOpen
)

// versionPods is where the pods of one version of a kind are: paths in
// the dotted form of rules/pod_shapes.c ('*': every element of a list
// or value of a mapping).
type versionPods struct {
	version string
	paths   []string
	// where a Tekton run places its pod (nodeSelector, affinity...)
	placement string
	// a Tekton task spec of tekton.dev/v1: containers' resources are
	// computeResources
	computeResources bool
}

// gateShape is one kind.
type gateShape struct {
	group, resource, kind string
	namespaced            bool
	keep                  keep
	form                  podForm
	versions              []versionPods
	// names of the members under a '*' path when it is a mapping
	// (a Kubeflow job's replica types)
	mapKeys []string
	// 1 when the registration covers it (a built-in row; a custom
	// resource of the config is added at run time)
	registered bool
}

var replicaKeys = []string{"Worker", "PS", "Chief", "Master", "Launcher", "Evaluator"}

// gateShapes: every kind of the pod-shape table, by the APIs' own
// documentation of where their pods are.
var gateShapes = []gateShape{
	{"", "pods", "Pod", true, keepTyped, formSpec, []versionPods{{version: "v1", paths: []string{"spec"}}}, nil, true},
	{"", "replicationcontrollers", "ReplicationController", true, keepTyped, formSpec,
		[]versionPods{{version: "v1", paths: []string{"spec.template.spec"}}}, nil, true},
	{"", "podtemplates", "PodTemplate", true, keepTyped, formSpec,
		[]versionPods{{version: "v1", paths: []string{"template.spec"}}}, nil, true},
	{"apps", "deployments", "Deployment", true, keepTyped, formSpec,
		[]versionPods{{version: "v1", paths: []string{"spec.template.spec"}}}, nil, true},
	{"apps", "replicasets", "ReplicaSet", true, keepTyped, formSpec,
		[]versionPods{{version: "v1", paths: []string{"spec.template.spec"}}}, nil, true},
	{"apps", "statefulsets", "StatefulSet", true, keepTyped, formSpec,
		[]versionPods{{version: "v1", paths: []string{"spec.template.spec"}}}, nil, true},
	{"apps", "daemonsets", "DaemonSet", true, keepTyped, formSpec,
		[]versionPods{{version: "v1", paths: []string{"spec.template.spec"}}}, nil, true},
	{"batch", "jobs", "Job", true, keepTyped, formSpec,
		[]versionPods{{version: "v1", paths: []string{"spec.template.spec"}}}, nil, true},
	{"batch", "cronjobs", "CronJob", true, keepTyped, formSpec, []versionPods{
		{version: "v1", paths: []string{"spec.jobTemplate.spec.template.spec"}},
		{version: "v1beta1", paths: []string{"spec.jobTemplate.spec.template.spec"}}}, nil, true},
	// Kubeflow's training operator: v1 replica specs by type; v1alpha1
	// (tf-operator, mpi-operator) a list of replica specs, or one template
	{"kubeflow.org", "tfjobs", "TFJob", true, keepSchema, formSpec, []versionPods{
		{version: "v1", paths: []string{"spec.tfReplicaSpecs.*.template.spec"}},
		{version: "v1alpha2", paths: []string{"spec.tfReplicaSpecs.*.template.spec"}},
		{version: "v1alpha1", paths: []string{"spec.replicaSpecs.*.template.spec"}}}, replicaKeys, true},
	{"kubeflow.org", "pytorchjobs", "PyTorchJob", true, keepSchema, formSpec, []versionPods{
		{version: "v1", paths: []string{"spec.pytorchReplicaSpecs.*.template.spec"}}}, replicaKeys, true},
	{"kubeflow.org", "mpijobs", "MPIJob", true, keepSchema, formSpec, []versionPods{
		{version: "v1", paths: []string{"spec.mpiReplicaSpecs.*.template.spec"}},
		{version: "v2beta1", paths: []string{"spec.mpiReplicaSpecs.*.template.spec"}},
		{version: "v1alpha1", paths: []string{"spec.template.spec"}}}, replicaKeys, true},
	{"kubeflow.org", "xgboostjobs", "XGBoostJob", true, keepSchema, formSpec, []versionPods{
		{version: "v1", paths: []string{"spec.xgbReplicaSpecs.*.template.spec"}}}, replicaKeys, true},
	{"kubeflow.org", "paddlejobs", "PaddleJob", true, keepSchema, formSpec, []versionPods{
		{version: "v1", paths: []string{"spec.paddleReplicaSpecs.*.template.spec"}}}, replicaKeys, true},
	{"kubeflow.org", "notebooks", "Notebook", true, keepSchema, formSpec, []versionPods{
		{version: "v1", paths: []string{"spec.template.spec"}}}, nil, true},
	{"batch.volcano.sh", "jobs", "Job", true, keepSchema, formSpec, []versionPods{
		{version: "v1alpha1", paths: []string{"spec.tasks.*.template.spec"}}}, nil, true},
	// KubeRay: a RayJob's submitter pod is a PodTemplateSpec too
	{"ray.io", "rayclusters", "RayCluster", true, keepSchema, formSpec, []versionPods{
		{version: "v1", paths: []string{"spec.headGroupSpec.template.spec", "spec.workerGroupSpecs.*.template.spec"}}}, nil, true},
	{"ray.io", "rayjobs", "RayJob", true, keepSchema, formSpec, []versionPods{
		{version: "v1", paths: []string{"spec.rayClusterSpec.headGroupSpec.template.spec",
			"spec.rayClusterSpec.workerGroupSpecs.*.template.spec", "spec.submitterPodTemplate.spec"}}}, nil, true},
	{"ray.io", "rayservices", "RayService", true, keepSchema, formSpec, []versionPods{
		{version: "v1", paths: []string{"spec.rayClusterConfig.headGroupSpec.template.spec",
			"spec.rayClusterConfig.workerGroupSpecs.*.template.spec"}}}, nil, true},
	{"argoproj.io", "rollouts", "Rollout", true, keepSchema, formSpec, []versionPods{
		{version: "v1alpha1", paths: []string{"spec.template.spec"}}}, nil, true},
	{"argoproj.io", "workflows", "Workflow", true, keepOpen, formArgo, []versionPods{
		{version: "v1alpha1", paths: []string{"spec.templates.*", "spec.templateDefaults"}}}, nil, true},
	{"argoproj.io", "workflowtemplates", "WorkflowTemplate", true, keepOpen, formArgo, []versionPods{
		{version: "v1alpha1", paths: []string{"spec.templates.*", "spec.templateDefaults"}}}, nil, true},
	{"argoproj.io", "cronworkflows", "CronWorkflow", true, keepOpen, formArgo, []versionPods{
		{version: "v1alpha1", paths: []string{"spec.workflowSpec.templates.*", "spec.workflowSpec.templateDefaults"}}}, nil, true},
	{"argoproj.io", "clusterworkflowtemplates", "ClusterWorkflowTemplate", false, keepOpen, formArgo, []versionPods{
		{version: "v1alpha1", paths: []string{"spec.templates.*", "spec.templateDefaults"}}}, nil, true},
	{"serving.kserve.io", "inferenceservices", "InferenceService", true, keepSchema, formKServe, []versionPods{
		{version: "v1beta1", paths: []string{"spec.predictor", "spec.transformer", "spec.explainer"}}}, nil, true},
	{"serving.knative.dev", "services", "Service", true, keepSchema, formSpec, []versionPods{
		{version: "v1", paths: []string{"spec.template.spec"}}}, nil, true},
	{"serving.knative.dev", "configurations", "Configuration", true, keepSchema, formSpec, []versionPods{
		{version: "v1", paths: []string{"spec.template.spec"}}}, nil, true},
	{"serving.knative.dev", "revisions", "Revision", true, keepSchema, formSpec, []versionPods{
		{version: "v1", paths: []string{"spec"}}}, nil, true},
	{"tekton.dev", "tasks", "Task", true, keepOpen, formTekton, []versionPods{
		{version: "v1", paths: []string{"spec"}, computeResources: true},
		{version: "v1beta1", paths: []string{"spec"}}}, nil, true},
	{"tekton.dev", "clustertasks", "ClusterTask", false, keepOpen, formTekton, []versionPods{
		{version: "v1beta1", paths: []string{"spec"}}}, nil, true},
	{"tekton.dev", "taskruns", "TaskRun", true, keepOpen, formTekton, []versionPods{
		{version: "v1", paths: []string{"spec.taskSpec"}, placement: "spec.podTemplate", computeResources: true},
		{version: "v1beta1", paths: []string{"spec.taskSpec"}, placement: "spec.podTemplate"}}, nil, true},
	{"tekton.dev", "pipelines", "Pipeline", true, keepOpen, formTekton, []versionPods{
		{version: "v1", paths: []string{"spec.tasks.*.taskSpec", "spec.finally.*.taskSpec"}, computeResources: true},
		{version: "v1beta1", paths: []string{"spec.tasks.*.taskSpec", "spec.finally.*.taskSpec"}}}, nil, true},
	{"tekton.dev", "pipelineruns", "PipelineRun", true, keepOpen, formTekton, []versionPods{
		{version: "v1", paths: []string{"spec.pipelineSpec.tasks.*.taskSpec", "spec.pipelineSpec.finally.*.taskSpec"},
			placement: "spec.taskRunTemplate.podTemplate", computeResources: true},
		{version: "v1beta1", paths: []string{"spec.pipelineSpec.tasks.*.taskSpec", "spec.pipelineSpec.finally.*.taskSpec"},
			placement: "spec.podTemplate"}}, nil, true},
	// a kind no entry is registered for: the API server never sends it,
	// and `review --entry` answers nothing for it
	{"example.org", "widgets", "Widget", true, keepOpen, formSpec, []versionPods{
		{version: "v1", paths: []string{"spec.template.spec"}}}, nil, false},
}

// customShape is the kind of a custom resource of webhook.customResources
// in the gate's configs: a pod at each of `paths`.
func customShape(group, resource, kind string, paths []string) gateShape {
	return gateShape{group, resource, kind, true, keepOpen, formSpec,
		[]versionPods{{version: "v1", paths: paths}}, replicaKeys, true}
}
