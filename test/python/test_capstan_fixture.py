# capstan in a pytest suite, as the README shows it: one server for the session (started with
# `npx capstan`, or CAPSTAN_COMMAND), the Debian python3-kubernetes client on its kubeconfig, and
# a reset between tests so that each starts from the server's first state.
import os
import re
import shlex
import subprocess
import tempfile

import pytest
from kubernetes import client, config, watch
from kubernetes.client.rest import ApiException

CAPSTAN = shlex.split(os.environ.get("CAPSTAN_COMMAND", "npx capstan"))


@pytest.fixture(scope="session")
def api():
    with tempfile.TemporaryDirectory() as data:
        server = subprocess.Popen(
            CAPSTAN + ["--storage", "memory", "--secure-port", "0", "--data-dir", data],
            stdout=subprocess.PIPE, text=True)
        kubeconfig = None
        for line in server.stdout:
            found = re.match(r"kubeconfig: (.+)", line)
            if found:
                kubeconfig = found.group(1)
                break
        assert kubeconfig, "capstan did not start"
        api = config.new_client_from_config(config_file=kubeconfig)
        yield api
        server.terminate()
        server.wait(timeout=20)


@pytest.fixture
def core(api):
    yield client.CoreV1Api(api)
    # Back to the first state: what this test made is gone for the next one.
    api.call_api("/capstan/reset", "POST", response_type="object", auth_settings=["BearerToken"])


def test_create_and_read(core):
    core.create_namespaced_config_map("default", {"metadata": {"name": "settings"}, "data": {"mode": "fast"}})
    assert core.read_namespaced_config_map("settings", "default").data == {"mode": "fast"}


def test_each_test_starts_from_the_first_state(core):
    names = [cm.metadata.name for cm in core.list_namespaced_config_map("default").items]
    assert "settings" not in names
    assert sorted(ns.metadata.name for ns in core.list_namespace().items) == ["default", "kube-node-lease", "kube-public", "kube-system"]


def test_watch_sees_a_change(core):
    listed = core.list_namespaced_config_map("default")
    core.create_namespaced_config_map("default", {"metadata": {"name": "watched"}})
    events = watch.Watch().stream(core.list_namespaced_config_map, "default",
                                  resource_version=listed.metadata.resource_version, timeout_seconds=5)
    first = next(events)
    assert (first["type"], first["object"].metadata.name) == ("ADDED", "watched")


def test_bad_input_is_the_reference_status_and_changes_nothing(core):
    with pytest.raises(ApiException) as refused:
        core.create_namespaced_config_map("default", {"metadata": {"name": "Not_A_Name"}})
    assert refused.value.status == 422
    assert "Not_A_Name" in refused.value.body
    assert [cm.metadata.name for cm in core.list_namespaced_config_map("default").items] == ["kube-root-ca.crt"]
