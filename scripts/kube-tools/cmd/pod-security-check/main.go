// Command pod-security-check judges the pods of the workloads in Kubernetes manifests against a Pod Security
// Standards level with the checks of the Pod Security admission controller itself (k8s.io/pod-security-admission), as
// a namespace labelled pod-security.kubernetes.io/enforce=<level> would: the pod template of a Deployment,
// StatefulSet, DaemonSet, ReplicaSet, Job or CronJob, or a Pod.
//
// Usage: pod-security-check [-level restricted] <manifest.yaml>...
// Prints one line per workload ("allowed" or each forbidden reason with its detail); exits 1 when any is forbidden or
// no workload was found, 2 on a file it cannot read.
package main

import (
	"bufio"
	"bytes"
	"errors"
	"flag"
	"fmt"
	"io"
	"os"

	appsv1 "k8s.io/api/apps/v1"
	batchv1 "k8s.io/api/batch/v1"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	utilyaml "k8s.io/apimachinery/pkg/util/yaml"
	"k8s.io/pod-security-admission/api"
	"k8s.io/pod-security-admission/policy"
	"sigs.k8s.io/yaml"
)

func main() {
	level := flag.String("level", string(api.LevelRestricted), "privileged, baseline or restricted")
	flag.Parse()
	if flag.NArg() == 0 {
		fmt.Fprintln(os.Stderr, "usage: pod-security-check [-level restricted] <manifest.yaml>...")
		os.Exit(2)
	}
	lvl, err := api.ParseLevel(*level)
	if err != nil {
		fmt.Fprintln(os.Stderr, "pod-security-check:", err)
		os.Exit(2)
	}
	evaluator, err := policy.NewEvaluator(policy.DefaultChecks(), nil)
	if err != nil {
		fmt.Fprintln(os.Stderr, "pod-security-check:", err)
		os.Exit(2)
	}
	lv := api.LevelVersion{Level: lvl, Version: api.LatestVersion()}
	workloads, forbidden := 0, 0
	for _, file := range flag.Args() {
		pods, err := podsIn(file)
		if err != nil {
			fmt.Fprintf(os.Stderr, "pod-security-check: %s: %v\n", file, err)
			os.Exit(2)
		}
		for _, p := range pods {
			workloads++
			result := policy.AggregateCheckResults(evaluator.EvaluatePod(lv, &p.meta, &p.spec))
			if result.Allowed {
				fmt.Printf("%s: %s: %s: allowed\n", file, p.name, lv.Level)
				continue
			}
			forbidden++
			fmt.Printf("%s: %s: %s: forbidden: %s\n", file, p.name, lv.Level, result.ForbiddenDetail())
		}
	}
	if workloads == 0 {
		fmt.Fprintln(os.Stderr, "pod-security-check: no workload (Deployment, StatefulSet, DaemonSet, ReplicaSet, Job, CronJob, Pod) found")
		os.Exit(1)
	}
	if forbidden > 0 {
		os.Exit(1)
	}
}

type pod struct {
	name string
	meta metav1.ObjectMeta
	spec corev1.PodSpec
}

// podsIn reads every document of a YAML file and returns the pod (template) of each workload in it; a document whose
// fields do not all belong to its kind is an error, as it would be for the API server's strict field validation.
func podsIn(file string) ([]pod, error) {
	raw, err := os.ReadFile(file)
	if err != nil {
		return nil, err
	}
	reader := utilyaml.NewYAMLReader(bufio.NewReader(bytes.NewReader(raw)))
	var pods []pod
	for {
		doc, err := reader.Read()
		if errors.Is(err, io.EOF) {
			return pods, nil
		}
		if err != nil {
			return nil, err
		}
		var head metav1.TypeMeta
		if err := yaml.Unmarshal(doc, &head); err != nil {
			return nil, err
		}
		var name string
		var template corev1.PodTemplateSpec
		switch head.Kind {
		case "Deployment":
			var d appsv1.Deployment
			err = yaml.UnmarshalStrict(doc, &d)
			name, template = d.Name, d.Spec.Template
		case "StatefulSet":
			var s appsv1.StatefulSet
			err = yaml.UnmarshalStrict(doc, &s)
			name, template = s.Name, s.Spec.Template
		case "DaemonSet":
			var d appsv1.DaemonSet
			err = yaml.UnmarshalStrict(doc, &d)
			name, template = d.Name, d.Spec.Template
		case "ReplicaSet":
			var r appsv1.ReplicaSet
			err = yaml.UnmarshalStrict(doc, &r)
			name, template = r.Name, r.Spec.Template
		case "Job":
			var j batchv1.Job
			err = yaml.UnmarshalStrict(doc, &j)
			name, template = j.Name, j.Spec.Template
		case "CronJob":
			var c batchv1.CronJob
			err = yaml.UnmarshalStrict(doc, &c)
			name, template = c.Name, c.Spec.JobTemplate.Spec.Template
		case "Pod":
			var p corev1.Pod
			err = yaml.UnmarshalStrict(doc, &p)
			name, template = p.Name, corev1.PodTemplateSpec{ObjectMeta: p.ObjectMeta, Spec: p.Spec}
		default:
			continue
		}
		if err != nil {
			return nil, fmt.Errorf("%s %s: %w", head.Kind, name, err)
		}
		pods = append(pods, pod{name: head.Kind + "/" + name, meta: template.ObjectMeta, spec: template.Spec})
	}
}
