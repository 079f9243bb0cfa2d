"""Drives the Debian Python Kubernetes client (python3-kubernetes) against capstan.

Run by test/e2e/python-client.test.ts with /usr/bin/python3: python-client.py KUBECONFIG NAMESPACE.
Creates, lists, watches (the client sends watch=True) and server-side applies with force
(force=True), then prints one JSON object saying what the client saw.
"""
import json
import sys
import threading
import time

from kubernetes import client, config, dynamic, watch
from kubernetes.client.rest import ApiException

kubeconfig, namespace = sys.argv[1], sys.argv[2]
api_client = config.new_client_from_config(config_file=kubeconfig)
core = client.CoreV1Api(api_client)
seen = {"version": __import__("kubernetes").__version__}


def config_map(name, data):
    return client.V1ConfigMap(metadata=client.V1ObjectMeta(name=name), data=data)


# Create and list.
core.create_namespace(client.V1Namespace(metadata=client.V1ObjectMeta(name=namespace)))
core.create_namespaced_config_map(namespace, config_map("first", {"k": "1"}))
listed = core.list_namespaced_config_map(namespace)
seen["listed"] = sorted(item.metadata.name for item in listed.items)
start = listed.metadata.resource_version

# Changes made after the list: the watch from the list's version replays them, then stays open
# for one made while it watches.
core.create_namespaced_config_map(namespace, config_map("second", {"k": "1"}))
core.patch_namespaced_config_map("second", namespace, {"data": {"k": "2"}})
core.delete_namespaced_config_map("second", namespace)


def later_create():
    time.sleep(1.0)
    core.create_namespaced_config_map(namespace, config_map("live", {"k": "1"}))


threading.Thread(target=later_create, daemon=True).start()
events = []
w = watch.Watch()
for event in w.stream(core.list_namespaced_config_map, namespace, resource_version=start, timeout_seconds=20):
    name = event["object"].metadata.name
    if name == "kube-root-ca.crt":
        continue
    events.append("%s %s %s" % (event["type"], name, json.dumps(event["object"].data, sort_keys=True)))
    if name == "live":
        w.stop()
seen["watched"] = events

# Server-side apply: a second manager conflicts, and takes the field with force. (22.6's REST layer
# sends an apply body only as text, so the manifest goes as JSON text.)
resources = dynamic.DynamicClient(api_client).resources.get(api_version="v1", kind="ConfigMap")
manifest = {"apiVersion": "v1", "kind": "ConfigMap", "metadata": {"name": "applied", "namespace": namespace}, "data": {"k": "mine"}}


def apply(manager, **options):
    return resources.server_side_apply(body=json.dumps(manifest), name="applied", namespace=namespace, field_manager=manager, **options)


apply("first-manager")
manifest["data"]["k"] = "theirs"
try:
    apply("second-manager")
    seen["unforced"] = "applied"
except ApiException as err:
    seen["unforced"] = err.status
forced = apply("second-manager", force_conflicts=True)
answered = forced.to_dict()
seen["forced"] = {
    "data": answered["data"],
    "managers": sorted(m["manager"] for m in answered["metadata"]["managedFields"] if "f:k" in json.dumps(m["fieldsV1"])),
}
print(json.dumps(seen))
