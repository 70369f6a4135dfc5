// The SVG flame graph's own script, run in node against a minimal DOM built from the SVG
// (test/live/flamegraph.sh): clicking zooms (the frame at full width, its callees scaled,
// its callers dimmed, the rest hidden), Reset Zoom restores, Search colours the matches and
// reports their share with nested matches counted once, hovering fills the details line.
// Usage: node flamegraph-dom.js FILE.svg   (the crafted input of flamegraph.sh)
//        node flamegraph-dom.js FILE.svg --search NAME   (any SVG, e.g. a tool's --flamegraph:
//        searching ^NAME$ colours every frame of that name whatever its module, reports
//        their share, and a click on one zooms to it)
"use strict";
const fs = require("fs");
const vm = require("vm");

const svg = fs.readFileSync(process.argv[2], "utf8");
let failed = 0;
function check(cond, what) {
	if (!cond) {
		console.error("FAIL: " + what);
		failed = 1;
	}
}

function el(tag, attrs, text) {
	const e = {
		tag, attrs: Object.assign({}, attrs), style: {}, children: [], textContent: text || "",
		getAttribute(k) { return k in this.attrs ? this.attrs[k] : null; },
		setAttribute(k, v) { this.attrs[k] = String(v); },
		getElementsByTagName(t) { return this.children.filter((c) => c.tag === t); },
	};
	e.firstChild = { nodeValue: e.textContent };
	return e;
}
function attrs(s) {
	const a = {};
	for (const m of s.matchAll(/([a-z-]+)="([^"]*)"/g))
		a[m[1]] = m[2];
	return a;
}
const unescape = (s) => s.replace(/&lt;/g, "<").replace(/&gt;/g, ">").replace(/&quot;/g, "\"")
	.replace(/&amp;/g, "&");

const gs = [], byId = {};
for (const m of svg.matchAll(/<g class="([^"]*)"><title>([^<]*)<\/title><rect ([^>]*)\/><text ([^>]*)>([^<]*)<\/text><\/g>/g)) {
	const g = el("g", { class: m[1] });
	g.children.push(el("title", {}, unescape(m[2])), el("rect", attrs(m[3])), el("text", attrs(m[4]), unescape(m[5])));
	gs.push(g);
}
for (const m of svg.matchAll(/<text id="([a-z]+)"([^>]*)>([^<]*)<\/text>/g))
	byId[m[1]] = el("text", attrs(m[2]), m[3]);
check(gs.length > 5, "frames found in the SVG: " + gs.length);

let answer = "";
const ctx = {
	document: { getElementById: (id) => byId[id], getElementsByTagName: (t) => (t === "g" ? gs : []) },
	window: { addEventListener() {} },
	prompt: () => answer,
	console,
};
vm.createContext(ctx);
vm.runInContext(svg.slice(svg.indexOf("<![CDATA[") + 9, svg.indexOf("]]>")), ctx);
vm.runInContext("init()", ctx);

const W = +byId.title.attrs.x * 2, full = W - 20;
const frame = (name, depth) => gs.find((g) => g.children[0].textContent.startsWith(name + " (") &&
	(depth === undefined || Math.round((+gs[0].children[1].attrs.y - +g.children[1].attrs.y) / 16) === depth));
const x = (g) => +g.children[1].attrs.x, w = (g) => +g.children[1].attrs.width;
const near = (a, b) => Math.abs(a - b) < 1e-3;

if (process.argv[3] === "--search") {
	const name = process.argv[4];
	const named = gs.filter((g) => g.children[0].textContent.startsWith(name + " (") ||
		g.children[0].textContent.startsWith(name + " ["));
	const root = gs.reduce((r, g) => (+g.children[1].attrs.y > +r.children[1].attrs.y ? g : r));
	check(named.length > 0, "no frame named " + name);
	answer = "^" + name + "$";
	byId.search.onclick();
	check(named.every((g) => g.children[1].attrs.fill === "rgb(230,0,230)"),
		"not every frame named " + name + " is coloured by the search");
	const share = named.reduce((n, g) => n + w(g), 0) / w(root);
	check(byId.matched.textContent === "Matched: " + (100 * share).toFixed(2) + "%",
		byId.matched.textContent + ", want " + (100 * share).toFixed(2) + "%");
	if (named.length) {
		named[0].onclick();
		check(near(w(named[0]), full) && near(x(named[0]), 10), "a click does not zoom to " + name);
	}
	if (!failed)
		console.log("svg script: search and zoom on " + named.length + " frames named " + name);
	process.exit(failed);
}

const all = frame("all"), main = frame("main"), a = frame("a"), b = frame("b"), c = frame("c");
check(all && main && a && b && c, "frames all, main, a, b, c");
const wa = w(a), wb = w(b), xb = x(b), xa = x(a);

a.onclick();
check(near(w(a), full) && near(x(a), 10), "zoomed frame at full width: " + w(a));
check(near(w(b), wb * full / wa) && near(x(b), 10 + (xb - xa) * full / wa), "callee scaled: " + w(b));
check(near(w(main), full) && main.style.opacity === 0.6, "caller at full width, dimmed");
check(c.style.display === "none", "a frame outside the zoom is hidden");
check(byId.reset.style.opacity === 1, "Reset Zoom shown");
check(b.children[2].textContent === "b", "labels follow the zoom");

byId.reset.onclick();
check(near(w(a), wa) && near(w(b), wb) && c.style.display === "" && main.style.opacity === 1,
	"Reset Zoom restores every frame");
check(byId.reset.style.opacity === 0, "Reset Zoom hidden again");

answer = "^b$";
byId.search.onclick();
check(b.children[1].attrs.fill === "rgb(230,0,230)", "a match is coloured");
check(c.children[1].attrs.fill !== "rgb(230,0,230)", "a non-match is not");
const total = +/all \((\d+) /.exec(all.children[0].textContent)[1];
const val = (g) => +/ \((\d+) /.exec(g.children[0].textContent)[1];
const pct = (v) => "Matched: " + (100 * v / total).toFixed(2) + "%";
check(byId.matched.textContent === pct(val(b)), byId.matched.textContent + ", want " + pct(val(b)));
answer = "^(a|b)$";
byId.search.onclick();
check(byId.matched.textContent === pct(val(a)), "nested matches once: " + byId.matched.textContent + ", want " + pct(val(a)));
answer = "(";
byId.search.onclick();
check(byId.matched.textContent === "bad expression", "a bad expression is reported");

c.onmouseover();
check(byId.details.firstChild.nodeValue === c.children[0].textContent, "details line on hover");
c.onmouseout();
check(byId.details.firstChild.nodeValue === " ", "details line cleared");

if (!failed)
	console.log("svg script: zoom, reset, search and details work (" + gs.length + " frames)");
process.exit(failed);
