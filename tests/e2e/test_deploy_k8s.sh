#!/usr/bin/env bash
# deploy/k8s/: every manifest is valid YAML with the fields Kubernetes
# requires, and the pieces fit together: labels and selectors, ports, probes
# (startup and readiness on /ready, liveness on /health), a grace period
# longer than preStop + drain timeout, ELECTRA_THREADS equal to the CPU
# limit, a non-root read-only container matching the Dockerfile's USER, the
# models volume where ELECTRA_MODEL points, and an autoscaling/v2 HPA on the
# Deployment. No cluster needed (kubectl is used only when installed).
set -u
cd "$(dirname "$0")/../.."
BUILD=${BUILD:-build}
PYTHON=${PYTHON:-/usr/bin/python3}
if ! "$PYTHON" -c 'import yaml' 2>/dev/null; then
  echo "ok - # SKIP $PYTHON has no yaml module (Debian package python3-yaml)"
  exit 0
fi
help=""
[ -x "$BUILD/bin/electra-server" ] && help=$("$BUILD/bin/electra-server" --help 2>&1)
HELP=$help exec "$PYTHON" - "${K8S_DIR:-deploy/k8s}" Dockerfile <<'EOF'
import os
import re
import sys

import yaml

kdir, dockerfile = sys.argv[1], sys.argv[2]
fails = 0


def check(cond, msg):
    global fails
    print(("ok - " if cond else "not ok - ") + msg)
    if not cond:
        fails += 1
    return cond


def get(d, path, default=None):
    for k in path.split("."):
        if isinstance(d, list):
            d = d[int(k)] if k.isdigit() and int(k) < len(d) else None
        elif isinstance(d, dict):
            d = d.get(k)
        else:
            d = None
        if d is None:
            return default
    return d


def secs_of_quantity_cpu(q):
    """Kubernetes CPU quantity -> cores (float): "2", "1500m", 0.5."""
    s = str(q)
    return float(s[:-1]) / 1000 if s.endswith("m") else float(s)


# ---- parse every file ----
docs = {}  # kind -> list of (file, doc)
files = sorted(f for f in os.listdir(kdir) if f.endswith((".yaml", ".yml")))
check(len(files) > 0, f"{kdir} has manifests ({len(files)})")
for f in files:
    try:
        loaded = [d for d in yaml.safe_load_all(open(os.path.join(kdir, f))) if d is not None]
    except yaml.YAMLError as e:
        check(False, f"{f}: valid YAML ({str(e).splitlines()[0]})")
        continue
    check(len(loaded) > 0, f"{f}: valid YAML, {len(loaded)} document(s)")
    for d in loaded:
        kind = d.get("kind")
        okfields = bool(d.get("apiVersion")) and bool(kind) and (
            kind == "Kustomization" or bool(get(d, "metadata.name")))
        check(okfields, f"{f}: {kind or '?'} has apiVersion, kind, metadata.name")
        docs.setdefault(kind, []).append((f, d))


def one(kind):
    lst = docs.get(kind, [])
    check(len(lst) == 1, f"exactly one {kind} (found {len(lst)})")
    return lst[0][1] if lst else {}


kust = one("Kustomization")
for r in kust.get("resources", []):
    check(os.path.exists(os.path.join(kdir, r)), f"kustomization resource {r} exists")
for f in files:
    if f != "kustomization.yaml" and f not in kust.get("resources", []):
        print(f"# {f} is not in kustomization.yaml (applied by hand)")

dep, svc, hpa, cm = one("Deployment"), one("Service"), one("HorizontalPodAutoscaler"), one("ConfigMap")
pvcs = {get(d, "metadata.name"): d for _, d in docs.get("PersistentVolumeClaim", [])}

# ---- ConfigMap ----
data = cm.get("data", {}) or {}
check(all(isinstance(v, str) for v in data.values()), "ConfigMap: every value is a string")
check(all(k.startswith("ELECTRA_") for k in data), "ConfigMap: every key is an ELECTRA_* option")
helptext = os.environ.get("HELP", "")
if helptext:
    for k in data:
        flag = "--" + k[len("ELECTRA_"):].lower().replace("_", "-")
        check(re.search(re.escape(flag) + r"\b", helptext) is not None,
              f"ConfigMap: {k} is {flag} of electra-server --help")
else:
    print("ok - # SKIP electra-server not built: ConfigMap keys not checked against --help")
check(data.get("ELECTRA_HOST") == "0.0.0.0", "ConfigMap: ELECTRA_HOST=0.0.0.0 (reachable from the Service)")
port = int(data.get("ELECTRA_PORT", "8080"))
drain = float(data.get("ELECTRA_DRAIN_TIMEOUT", "30"))

# ---- Deployment ----
spec = get(dep, "spec.template.spec", {})
labels = get(dep, "spec.template.metadata.labels", {}) or {}
sel = get(dep, "spec.selector.matchLabels", {}) or {}
check(bool(sel) and all(labels.get(k) == v for k, v in sel.items()),
      f"Deployment: selector {sel} matches the pod labels")
cons = spec.get("containers", []) or []
check(len(cons) >= 1, "Deployment: has a container")
c = cons[0] if cons else {}
cports = c.get("ports", []) or []
http = next((p for p in cports if p.get("name") == "http"), cports[0] if cports else {})
check(http.get("containerPort") == port, f"containerPort {http.get('containerPort')} == ELECTRA_PORT {port}")
expose = re.findall(r"(?m)^EXPOSE\s+(\d+)", open(dockerfile).read())
check(str(port) in expose, f"containerPort {port} is the Dockerfile's EXPOSE {expose}")


# the probes go to the probe port (ELECTRA_HEALTH_PORT), which a flood of the
# API port does not reach
hport = int(data.get("ELECTRA_HEALTH_PORT", "0"))
health = next((p for p in cports if p.get("name") == "health"), {})
check(hport > 0 and health.get("containerPort") == hport,
      f"container port \"health\" {health.get('containerPort')} == ELECTRA_HEALTH_PORT {hport}")


def probe_port_ok(p):
    pp = get(p, "httpGet.port")
    return pp == health.get("containerPort") or (isinstance(pp, str) and pp == health.get("name"))


for name, path in (("startupProbe", "/ready"), ("readinessProbe", "/ready"), ("livenessProbe", "/health")):
    p = c.get(name) or {}
    check(get(p, "httpGet.path") == path, f"{name} GETs {path} (got {get(p, 'httpGet.path')})")
    check(probe_port_ok(p), f"{name} port {get(p, 'httpGet.port')} is the probe port")
st = c.get("startupProbe") or {}
window = st.get("periodSeconds", 10) * st.get("failureThreshold", 3)
check(window >= 120, f"startupProbe allows {window} s for model load (>= 120)")
pre = get(c, "lifecycle.preStop.exec.command") or []
pre_s = get(c, "lifecycle.preStop.sleep.seconds")
if pre_s is None:
    m = re.fullmatch(r"sleep (\d+)", " ".join(pre[-2:])) if pre else None
    pre_s = int(m.group(1)) if m else None
check(pre_s is not None and pre_s > 0, f"preStop sleeps ({pre_s} s) so endpoints drop before SIGTERM")
grace = spec.get("terminationGracePeriodSeconds", 30)
check(grace > (pre_s or 0) + drain,
      f"terminationGracePeriodSeconds {grace} > preStop {pre_s} + drain timeout {drain:g}")

res = c.get("resources", {}) or {}
for k in ("requests.cpu", "requests.memory", "limits.cpu", "limits.memory"):
    check(get(res, k) is not None, f"resources.{k} set ({get(res, k)})")
cpu_limit = secs_of_quantity_cpu(get(res, "limits.cpu", 0))
env = {e.get("name"): e for e in c.get("env", []) or []}
t = env.get("ELECTRA_THREADS")
if t is None:
    check(False, "ELECTRA_THREADS set in the container env")
elif "value" in t:
    check(float(t["value"]) == cpu_limit, f"ELECTRA_THREADS {t['value']} == CPU limit {cpu_limit:g}")
else:
    rf = get(t, "valueFrom.resourceFieldRef", {}) or {}
    okref = (rf.get("resource") == "limits.cpu" and rf.get("containerName", c.get("name")) == c.get("name")
             and str(rf.get("divisor", "1")) == "1")
    check(okref, f"ELECTRA_THREADS = this container's limits.cpu in whole cores (resourceFieldRef {rf})")
    check(cpu_limit == int(cpu_limit), f"CPU limit {cpu_limit:g} is whole cores (threads = limit exactly)")
check(any(get(e, "configMapRef.name") == get(cm, "metadata.name") for e in c.get("envFrom", []) or []),
      "container takes its options from the ConfigMap (envFrom)")

psc, csc = spec.get("securityContext", {}) or {}, c.get("securityContext", {}) or {}
check(psc.get("runAsNonRoot") is True or csc.get("runAsNonRoot") is True, "runAsNonRoot: true")
uid = csc.get("runAsUser", psc.get("runAsUser"))
user = re.findall(r"(?m)^USER\s+(\S+)", open(dockerfile).read())
duid = user[-1].split(":")[0] if user else None
check(uid is not None and str(uid) == duid, f"runAsUser {uid} is the Dockerfile's USER {duid}")
check(csc.get("readOnlyRootFilesystem") is True, "readOnlyRootFilesystem: true")
check(csc.get("allowPrivilegeEscalation") is False, "allowPrivilegeEscalation: false")
check("ALL" in (get(csc, "capabilities.drop") or []), "capabilities drop ALL")

vols = {v.get("name"): v for v in spec.get("volumes", []) or []}
mounts = {m.get("mountPath"): m for m in c.get("volumeMounts", []) or []}
model_dirs = [x.split("=", 1)[1] for x in data.get("ELECTRA_MODEL", "").split(",") if "=" in x]
check(len(model_dirs) > 0, f"ConfigMap ELECTRA_MODEL names model directories {model_dirs}")
for mdir in model_dirs:
    mp = next((p for p in mounts if mdir == p or mdir.startswith(p.rstrip("/") + "/")), None)
    check(mp is not None, f"model dir {mdir} is on a mounted volume ({mp})")
    if mp:
        check(mounts[mp].get("readOnly") is True, f"{mp} mounted read-only")
        v = vols.get(mounts[mp].get("name"), {})
        claim = get(v, "persistentVolumeClaim.claimName")
        if claim:
            check(claim in pvcs, f"volume's claim {claim} is defined (models-pvc.yaml)")
        else:
            check(any(k in v for k in ("image", "emptyDir", "configMap", "hostPath", "csi", "nfs")),
                  f"models volume {mounts[mp].get('name')} has a source")
check("/tmp" in mounts and "emptyDir" in vols.get(mounts["/tmp"].get("name"), {}),
      "/tmp is an emptyDir (the root file system is read-only)")
for m in mounts.values():
    check(m.get("name") in vols, f"volumeMount {m.get('name')} has a volume")

# ---- Service ----
ssel = get(svc, "spec.selector", {}) or {}
check(bool(ssel) and all(labels.get(k) == v for k, v in ssel.items()),
      f"Service selector {ssel} matches the pod labels")
for p in get(svc, "spec.ports", []) or []:
    tp = p.get("targetPort")
    check(tp == http.get("containerPort") or tp == http.get("name"),
          f"Service port {p.get('port')} -> targetPort {tp} is the container port")

# ---- HPA ----
check(hpa.get("apiVersion") == "autoscaling/v2", f"HPA apiVersion autoscaling/v2 (got {hpa.get('apiVersion')})")
ref = get(hpa, "spec.scaleTargetRef", {}) or {}
check(ref.get("kind") == "Deployment" and ref.get("name") == get(dep, "metadata.name")
      and ref.get("apiVersion") == dep.get("apiVersion"), f"HPA targets the Deployment ({ref})")
mn, mx = get(hpa, "spec.minReplicas", 1), get(hpa, "spec.maxReplicas", 0)
check(1 <= mn <= mx, f"HPA 1 <= minReplicas {mn} <= maxReplicas {mx}")
cpu_metric = [m for m in get(hpa, "spec.metrics", []) or []
              if m.get("type") == "Resource" and get(m, "resource.name") == "cpu"]
check(len(cpu_metric) == 1 and get(cpu_metric[0], "resource.target.averageUtilization"),
      "HPA scales on CPU utilisation")
check(get(res, "requests.cpu") is not None, "CPU request set (HPA utilisation is relative to it)")

for f, d in docs.get("PodDisruptionBudget", []):
    psel = get(d, "spec.selector.matchLabels", {}) or {}
    check(all(labels.get(k) == v for k, v in psel.items()), f"{f}: PDB selector matches the pods")

print(f"# {sum(len(v) for v in docs.values())} manifests checked")
sys.exit(1 if fails else 0)
EOF
