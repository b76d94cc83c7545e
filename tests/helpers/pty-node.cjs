// pty-node.cjs MODULES: node-pty (gemini-cli's @lydell/node-pty, from
// MODULES, a node_modules directory) spawns /bin/sh on a pty of its own;
// prints what the shell said ("/dev/pts/N" from tty(1) and "node-pty-ok"),
// or the error node-pty threw. Exit status 0 either way.
const path = require("path");
let pty;
try {
  pty = require(path.join(process.argv[2], "@lydell/node-pty"));
} catch (e) {
  console.log("load: " + e.message);
  process.exit(0);
}
let p;
try {
  p = pty.spawn("/bin/sh", ["-c", "tty; echo node-pty-ok"], { env: { PATH: "/usr/bin:/bin" } });
} catch (e) {
  console.log("spawn: " + e.message);
  process.exit(0);
}
let out = "";
p.onData((d) => { out += d; });
p.onExit(() => {
  console.log(out.replace(/\r/g, "").trim());
  process.exit(0);
});
