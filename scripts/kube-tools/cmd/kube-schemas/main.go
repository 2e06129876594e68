// Command kube-schemas turns the Kubernetes API's own OpenAPI v3 documents (api/openapi-spec/v3 of the
// k8s.io/kubernetes module, one per group version) into the JSON schemas kubeconform reads: one file per kind, named
// as kubeconform looks them up ({kind}-{group}-{version}.json, {kind}-{version}.json for the core group), each
// standalone (the definitions it refers to are inside it) and strict (an object accepts only the fields the API
// defines, so a misspelt or misplaced key fails instead of being dropped by the API server).
//
// Usage: kube-schemas <openapi-spec/v3 directory> <output directory>
package main

import (
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"sort"
	"strings"
)

const componentsPrefix = "#/components/schemas/"

func main() {
	if len(os.Args) != 3 {
		fmt.Fprintln(os.Stderr, "usage: kube-schemas <openapi-spec/v3 directory> <output directory>")
		os.Exit(2)
	}
	if err := run(os.Args[1], os.Args[2]); err != nil {
		fmt.Fprintln(os.Stderr, "kube-schemas:", err)
		os.Exit(1)
	}
}

func run(specDir, outDir string) error {
	docs, err := filepath.Glob(filepath.Join(specDir, "api*__*_openapi.json"))
	if err != nil {
		return err
	}
	if len(docs) == 0 {
		return fmt.Errorf("no OpenAPI v3 documents (api*__*_openapi.json) in %s", specDir)
	}
	if err := os.MkdirAll(outDir, 0o755); err != nil {
		return err
	}
	// The meta kinds (APIGroup, Status, ...) are in every document: the files are counted once.
	written := map[string]bool{}
	for _, doc := range docs {
		if err := convert(doc, outDir, written); err != nil {
			return fmt.Errorf("%s: %w", doc, err)
		}
	}
	if len(written) == 0 {
		return fmt.Errorf("no kinds found in %s", specDir)
	}
	fmt.Fprintf(os.Stderr, "kube-schemas: %d schemas written to %s\n", len(written), outDir)
	return nil
}

func convert(doc, outDir string, written map[string]bool) error {
	raw, err := os.ReadFile(doc)
	if err != nil {
		return err
	}
	var spec struct {
		Components struct {
			Schemas map[string]any `json:"schemas"`
		} `json:"components"`
	}
	if err := json.Unmarshal(raw, &spec); err != nil {
		return err
	}
	schemas := spec.Components.Schemas
	for _, s := range schemas {
		rewrite(s)
	}
	names := make([]string, 0, len(schemas))
	for name := range schemas {
		names = append(names, name)
	}
	sort.Strings(names)
	for _, name := range names {
		def, _ := schemas[name].(map[string]any)
		gvks, _ := def["x-kubernetes-group-version-kind"].([]any)
		// A type served under several group versions (DeleteOptions, WatchEvent) is not a kind one applies.
		if len(gvks) != 1 {
			continue
		}
		gvk := gvks[0].(map[string]any)
		group, version, kind := gvk["group"].(string), gvk["version"].(string), gvk["kind"].(string)
		if strings.HasSuffix(kind, "List") && kind != "List" {
			continue
		}
		definitions := map[string]any{}
		closure(name, schemas, definitions)
		apiVersion := version
		if group != "" {
			apiVersion = group + "/" + version
		}
		out := map[string]any{
			"$schema":     "http://json-schema.org/draft-07/schema#",
			"description": fmt.Sprintf("%s %s, strict, from the Kubernetes API's OpenAPI v3 document", apiVersion, kind),
			"allOf": []any{
				map[string]any{"$ref": "#/definitions/" + name},
				// The document says only "string" for these two; kubeconform picked this file by them anyway.
				map[string]any{"properties": map[string]any{
					"apiVersion": map[string]any{"enum": []any{apiVersion}},
					"kind":       map[string]any{"enum": []any{kind}},
				}, "required": []any{"apiVersion", "kind"}},
			},
			"definitions": definitions,
		}
		file := strings.ToLower(kind)
		if group != "" {
			file += "-" + strings.Split(group, ".")[0]
		}
		file += "-" + version + ".json"
		body, err := json.MarshalIndent(out, "", " ")
		if err != nil {
			return err
		}
		if err := os.WriteFile(filepath.Join(outDir, file), body, 0o644); err != nil {
			return err
		}
		written[file] = true
	}
	return nil
}

// rewrite points references at the standalone file's definitions and makes every object with declared
// properties closed to others (what kubeconform's -strict schemas do).
func rewrite(node any) {
	switch n := node.(type) {
	case map[string]any:
		if ref, ok := n["$ref"].(string); ok && strings.HasPrefix(ref, componentsPrefix) {
			n["$ref"] = "#/definitions/" + strings.TrimPrefix(ref, componentsPrefix)
		}
		if _, has := n["properties"]; has {
			if _, open := n["additionalProperties"]; !open {
				n["additionalProperties"] = false
			}
		}
		for _, v := range n {
			rewrite(v)
		}
	case []any:
		for _, v := range n {
			rewrite(v)
		}
	}
}

// closure copies the definition called name and every definition it refers to, directly or not, into into.
func closure(name string, schemas map[string]any, into map[string]any) {
	if _, done := into[name]; done {
		return
	}
	def, ok := schemas[name]
	if !ok {
		return
	}
	into[name] = def
	var refs func(any)
	refs = func(node any) {
		switch n := node.(type) {
		case map[string]any:
			if ref, ok := n["$ref"].(string); ok {
				closure(strings.TrimPrefix(ref, "#/definitions/"), schemas, into)
			}
			for _, v := range n {
				refs(v)
			}
		case []any:
			for _, v := range n {
				refs(v)
			}
		}
	}
	refs(def)
}
