/* SPDX-FileCopyrightText: 2026 The gpumend authors */
/* SPDX-License-Identifier: Apache-2.0 */
/*
 * gen_corpus.c - writes a realistic multi-document manifest stream of about
 * SIZE megabytes for the CLI benchmark: mostly ordinary workloads, services
 * and config maps (nothing to change), some modern GPU jobs, and a few
 * legacy GPU manifests of every kind gpumend migrates. Deterministic.
 *
 *   gen_corpus SIZE_MB > corpus.yaml
 */
#include <stdio.h>
#include <stdlib.h>

static unsigned long long state = 88172645463325252ULL;

static unsigned next(void)
{
	state ^= state << 13;
	state ^= state >> 7;
	state ^= state << 17;
	return (unsigned)(state >> 32);
}

static long deployment(FILE *f, unsigned i)
{
	return fprintf(f,
		"---\n"
		"# web tier %u\n"
		"apiVersion: apps/v1\n"
		"kind: Deployment\n"
		"metadata:\n"
		"  name: web-%u\n"
		"  namespace: shop\n"
		"  labels:\n"
		"    app: web-%u\n"
		"    tier: frontend\n"
		"spec:\n"
		"  replicas: %u\n"
		"  selector:\n"
		"    matchLabels:\n"
		"      app: web-%u\n"
		"  template:\n"
		"    metadata:\n"
		"      labels:\n"
		"        app: web-%u\n"
		"        tier: frontend\n"
		"    spec:\n"
		"      containers:\n"
		"      - name: web\n"
		"        image: registry.example.com/shop/web:1.%u.%u\n"
		"        ports:\n"
		"        - containerPort: 8080\n"
		"          name: http\n"
		"        env:\n"
		"        - name: LOG_LEVEL\n"
		"          value: info\n"
		"        - name: DB_HOST\n"
		"          valueFrom:\n"
		"            configMapKeyRef: {name: shop-config, key: db-host}\n"
		"        resources:\n"
		"          requests: {cpu: 250m, memory: 256Mi}\n"
		"          limits: {cpu: \"1\", memory: 512Mi}\n"
		"        readinessProbe:\n"
		"          httpGet: {path: /healthz, port: http}\n"
		"          periodSeconds: 10\n",
		i, i, i, 1 + next() % 5, i, i, next() % 20, next() % 10);
}

static long service(FILE *f, unsigned i)
{
	return fprintf(f,
		"---\n"
		"apiVersion: v1\n"
		"kind: Service\n"
		"metadata:\n"
		"  name: web-%u\n"
		"  namespace: shop\n"
		"spec:\n"
		"  selector:\n"
		"    app: web-%u\n"
		"  ports:\n"
		"  - name: http\n"
		"    port: 80\n"
		"    targetPort: http\n", i, i);
}

static long configmap(FILE *f, unsigned i)
{
	return fprintf(f,
		"---\n"
		"apiVersion: v1\n"
		"kind: ConfigMap\n"
		"metadata:\n"
		"  name: settings-%u\n"
		"data:\n"
		"  db-host: db-%u.shop.svc.cluster.local\n"
		"  app.properties: |\n"
		"    cache.size=%u\n"
		"    feature.checkout=true\n"
		"    # comment inside a block scalar\n"
		"    retry.count=3\n", i, i % 7, next() % 4096);
}

static long modern_gpu_job(FILE *f, unsigned i)
{
	return fprintf(f,
		"---\n"
		"apiVersion: batch/v1\n"
		"kind: Job\n"
		"metadata:\n"
		"  name: train-%u\n"
		"spec:\n"
		"  template:\n"
		"    spec:\n"
		"      restartPolicy: Never\n"
		"      nodeSelector:\n"
		"        nvidia.com/gpu.product: A100-SXM4-80GB\n"
		"      containers:\n"
		"      - name: train\n"
		"        image: nvcr.io/nvidia/pytorch:24.01-py3\n"
		"        args: [\"python\", \"train.py\", \"--epochs=%u\"]\n"
		"        resources:\n"
		"          limits:\n"
		"            nvidia.com/gpu: %u\n", i, 1 + next() % 90, 1 + next() % 8);
}

static long legacy_gpu_pod(FILE *f, unsigned i)
{
	return fprintf(f,
		"---\n"
		"# legacy GPU pod from 2017\n"
		"apiVersion: v1\n"
		"kind: Pod\n"
		"metadata:\n"
		"  name: cuda-%u\n"
		"  annotations:\n"
		"    scheduler.alpha.kubernetes.io/affinity: >\n"
		"      {\"nodeAffinity\": {\"requiredDuringSchedulingIgnoredDuringExecution\":\n"
		"      {\"nodeSelectorTerms\": [{\"matchExpressions\": [{\"key\":\n"
		"      \"alpha.kubernetes.io/nvidia-gpu-name\", \"operator\": \"In\",\n"
		"      \"values\": [\"Tesla K80\"]}]}]}}}\n"
		"spec:\n"
		"  containers:\n"
		"  - name: cuda\n"
		"    image: nvidia/cuda:9.0-devel\n"
		"    resources:\n"
		"      limits:\n"
		"        alpha.kubernetes.io/nvidia-gpu: %u # GPUs\n"
		"    volumeMounts:\n"
		"    - name: nvidia-driver\n"
		"      mountPath: /usr/local/nvidia\n"
		"    - name: scratch\n"
		"      mountPath: /scratch\n"
		"  volumes:\n"
		"  - name: nvidia-driver\n"
		"    hostPath:\n"
		"      path: /var/lib/nvidia-docker/volumes/nvidia_driver/384.81\n"
		"  - name: scratch\n"
		"    emptyDir: {}\n", i, 1 + next() % 4);
}

static long legacy_gpushare(FILE *f, unsigned i)
{
	return fprintf(f,
		"---\n"
		"apiVersion: extensions/v1beta1\n"
		"kind: Deployment\n"
		"metadata:\n"
		"  name: binpack-%u\n"
		"spec:\n"
		"  replicas: 2\n"
		"  template:\n"
		"    metadata:\n"
		"      labels:\n"
		"        app: binpack-%u\n"
		"    spec:\n"
		"      schedulerName: gpushare-scheduler\n"
		"      containers:\n"
		"      - name: binpack\n"
		"        image: cheyang/gpu-player:v2\n"
		"        resources:\n"
		"          limits:\n"
		"            aliyun.com/gpu-mem: %u\n", i, i, 1 + next() % 8);
}

int main(int argc, char **argv)
{
	long long want = (argc > 1 ? atoll(argv[1]) : 200) * 1000000LL, wrote = 0;
	unsigned i = 0;

	while (wrote < want) {
		unsigned pick = next() % 100;
		long n;

		i++;
		if (pick < 35)
			n = deployment(stdout, i);
		else if (pick < 60)
			n = service(stdout, i);
		else if (pick < 80)
			n = configmap(stdout, i);
		else if (pick < 92)
			n = modern_gpu_job(stdout, i);
		else if (pick < 97)
			n = legacy_gpu_pod(stdout, i);
		else
			n = legacy_gpushare(stdout, i);
		if (n < 0)
			return 1;
		wrote += n;
	}
	return 0;
}
