// SPDX-FileCopyrightText: 2026 The gpumend authors
// SPDX-License-Identifier: Apache-2.0
// tests/schema/validate.mjs - validates Kubernetes objects against the
// Kubernetes 1.36 OpenAPI schema, with the validators of npm's
// kubernetes-models 5.1.0 (and @kubernetes-models/cert-manager and
// prometheus-operator for their kinds), for tests/suites/schema.sh.
//
//   node validate.mjs MODULES FILE...
//
// MODULES is the node_modules folder those packages (and `yaml`) were
// installed into. Every document of every YAML or JSON FILE (each item of a
// List) is one object; one line per object:
//   ok FILE#DOC KIND
//   invalid FILE#DOC KIND: POINTER MESSAGE, ...
//   unknown FILE#DOC KIND: POINTER: unknown field, ...
//   noschema FILE#DOC APIVERSION KIND
// The validators check types, enums, formats and required fields, not
// unknown fields: those are checked here from the models' TypeScript
// declarations (the interface of each type names its fields). Exit 0 when
// every object is ok, 1 otherwise, 2 when a FILE cannot be read.
// Runs on Node.js 18 (Debian 12).
import { readFileSync, existsSync } from "node:fs";
import { createRequire } from "node:module";
import path from "node:path";
import { pathToFileURL } from "node:url";

const [modules, ...files] = process.argv.slice(2);
if (!modules || files.length === 0) {
	console.error("usage: node validate.mjs MODULES FILE...");
	process.exit(2);
}
const require = createRequire(path.join(path.resolve(modules), "noop.js"));
const YAML = require("yaml");

// the packages that hold models, in the order they are looked in
const packages = [
	"kubernetes-models",
	"@kubernetes-models/cert-manager",
	"@kubernetes-models/prometheus-operator",
];

// modelFile: the model module of an apiVersion and kind, or null.
function modelFile(apiVersion, kind) {
	const [group, version] = apiVersion.includes("/")
		? apiVersion.split("/")
		: ["", apiVersion];
	const sub = group === "" ? path.join(version, kind) : path.join(group, version, kind);
	for (const pkg of packages) {
		const file = path.join(path.resolve(modules), pkg, sub + ".js");
		if (existsSync(file)) return file;
	}
	return null;
}

// ------------------------------------------------------------------
// Unknown fields, from the declarations (.d.ts) next to each model

const interfaces = new Map(); // .d.ts path -> {props: Map(name -> type), dts} or null

// resolveSpec: the .d.ts of an import specifier of the file `from`.
function resolveSpec(spec, from) {
	let base;
	if (spec.startsWith(".")) {
		base = path.resolve(path.dirname(from), spec);
	} else {
		base = path.join(path.resolve(modules), spec);
	}
	base = base.replace(/\.js$/, "");
	return existsSync(base + ".d.ts") ? base + ".d.ts" : null;
}

// declaration: the fields of the interface a .d.ts declares first.
function declaration(dts) {
	if (interfaces.has(dts)) return interfaces.get(dts);
	let result = null;
	const text = readFileSync(dts, "utf8");
	const imports = new Map();
	for (const m of text.matchAll(/^import \{ ([^}]+) \} from "([^"]+)";$/gm)) {
		for (const name of m[1].split(",")) imports.set(name.trim(), m[2]);
	}
	const block = text.match(/^export interface \w+(?: extends ([^{]+))? \{\n([\s\S]*?)\n\}$/m);
	if (block) {
		// a field is `    "name"?: TYPE;`, TYPE on one line or more
		const props = new Map();
		let name = null, type = "";
		const flush = () => {
			if (name !== null) props.set(name, type.replace(/;\s*$/, "").replace(/\s+/g, " "));
			name = null;
		};
		for (const line of block[2].split("\n")) {
			const m = line.match(/^ {4}"([^"]+)"\??: (.*)$/);
			if (m) {
				flush();
				[name, type] = [m[1], m[2]];
			} else if (/^ {4}\S/.test(line)) {
				flush();
			} else if (name !== null) {
				type += " " + line.trim();
			}
		}
		flush();
		result = { props, imports, dts };
		// an interface that extends others has their fields too
		interfaces.set(dts, result);
		for (const base of (block[1] || "").split(",").map((b) => b.trim()).filter(Boolean)) {
			const from = imports.get(base);
			const baseDts = from && resolveSpec(from, dts);
			const inherited = baseDts && declaration(baseDts);
			if (!inherited) continue;
			for (const [k, v] of inherited.props) {
				if (!props.has(k)) {
					props.set(k, v);
					// the field's type is named in the base's own imports
					const name = v.match(/\w+/);
					if (name && inherited.imports.has(name[0]) && !imports.has(name[0]))
					{
						const spec = inherited.imports.get(name[0]);
						imports.set(name[0], !spec.startsWith(".") ? spec :
							path.relative(path.dirname(dts), path.resolve(path.dirname(baseDts), spec)).replace(/^(?!\.)/, "./"));
					}
				}
			}
		}
	}
	interfaces.set(dts, result);
	return result;
}

// typeOf: what a declared type says about the value: {kind: "object",
// decl}, {kind: "array", of}, {kind: "map", of}, or null (a leaf).
function typeOf(type, decl) {
	type = type.trim();
	let m;
	if ((m = type.match(/^Array<(.+)>$/))) return { kind: "array", of: typeOf(m[1], decl) };
	if ((m = type.match(/^(\w+)\[\]$/))) return { kind: "array", of: typeOf(m[1], decl) };
	if ((m = type.match(/^\{ ?\[key: string\]: (.+?);? ?\}$/))) return { kind: "map", of: typeOf(m[1], decl) };
	if (!/^\w+$/.test(type) || !decl.imports.has(type)) return null;
	const dts = resolveSpec(decl.imports.get(type), decl.dts);
	const target = dts && declaration(dts);
	return target ? { kind: "object", decl: target } : null;
}

// unknownFields: the JSON Pointers of the fields of value its type lacks.
function unknownFields(value, type, pointer, out) {
	if (!type || value === null || typeof value !== "object") return out;
	if (type.kind === "array") {
		if (Array.isArray(value)) value.forEach((v, i) => unknownFields(v, type.of, `${pointer}/${i}`, out));
	} else if (type.kind === "map") {
		for (const [k, v] of Object.entries(value)) unknownFields(v, type.of, `${pointer}/${escape(k)}`, out);
	} else if (!Array.isArray(value)) {
		for (const [k, v] of Object.entries(value)) {
			const p = `${pointer}/${escape(k)}`;
			if (!type.decl.props.has(k)) out.push(p);
			else unknownFields(v, typeOf(type.decl.props.get(k), type.decl), p, out);
		}
	}
	return out;
}

function escape(key) {
	return key.replace(/~/g, "~0").replace(/\//g, "~1");
}

// valueAt: the value at a JSON Pointer of obj.
function valueAt(obj, pointer) {
	let v = obj;
	for (const t of pointer.split("/").slice(1)) {
		if (v === null || typeof v !== "object") return undefined;
		v = v[t.replace(/~1/g, "/").replace(/~0/g, "~")];
	}
	return v;
}

// apiServerAccepts: whether the API server takes what the validator
// refused. One case: base64 ("byte") with line breaks, as kustomize writes
// long values; Go's decoder skips \r and \n.
function apiServerAccepts(obj, e) {
	if (e.keyword !== "format" || e.params?.format !== "byte") return false;
	const v = valueAt(obj, e.instancePath);
	return typeof v === "string" &&
		/^(?:[A-Za-z0-9+/]{4})*(?:[A-Za-z0-9+/]{2}==|[A-Za-z0-9+/]{3}=)?$/.test(v.replace(/[\r\n]/g, ""));
}

// ------------------------------------------------------------------

async function check(where, obj) {
	const apiVersion = obj.apiVersion ?? "", kind = obj.kind ?? "";
	const file = modelFile(apiVersion, kind);
	if (!file) {
		console.log(`noschema ${where} ${apiVersion} ${kind}`);
		return false;
	}
	const mod = await import(pathToFileURL(file).href);
	const Model = mod[kind];
	try {
		new Model(obj).validate();
	} catch (err) {
		const errors = (err.errors ?? []).filter((e) => !apiServerAccepts(obj, e));
		if (errors.length > 0 || !err.errors) {
			const what = err.errors
				? errors.map((e) => `${e.instancePath || "/"} ${e.message}`).join(", ")
				: err.message;
			console.log(`invalid ${where} ${kind}: ${what.replace(/\n/g, " ")}`);
			return false;
		}
	}
	const dts = file.replace(/\.js$/, ".d.ts");
	const decl = existsSync(dts) ? declaration(dts) : null;
	const unknown = decl ? unknownFields(obj, { kind: "object", decl }, "", []) : [];
	if (unknown.length > 0) {
		console.log(`unknown ${where} ${kind}: ${unknown.map((p) => `${p}: unknown field`).join(", ")}`);
		return false;
	}
	console.log(`ok ${where} ${kind}`);
	return true;
}

let allOk = true;
for (const f of files) {
	let docs;
	try {
		docs = YAML.parseAllDocuments(readFileSync(f, "utf8"), { version: "1.1" });
	} catch (err) {
		console.error(`validate: error: cannot read '${f}': ${err.message}`);
		process.exit(2);
	}
	for (const [i, doc] of docs.entries()) {
		if (doc.errors.length > 0) {
			console.error(`validate: error: cannot parse '${f}' (document ${i}): ${doc.errors[0].message}`);
			process.exit(2);
		}
		const obj = doc.toJS({ maxAliasCount: 100 });
		if (obj === null || typeof obj !== "object") continue;
		const items = obj.kind === "List" && Array.isArray(obj.items)
			? obj.items.map((item, j) => [`${f}#${i}.${j}`, item])
			: [[`${f}#${i}`, obj]];
		for (const [where, item] of items) {
			if (!(await check(where, item))) allOk = false;
		}
	}
}
process.exit(allOk ? 0 : 1);
