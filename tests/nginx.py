"""nginx with the repository's site file (``deploy/nginx/ajedrez.conf``), run by a test:
the site rendered with free ports into a directory of its own, inside a main
configuration that keeps the pid file, logs and temporary files there, in the
foreground, so no root, no /etc and no /var are needed."""

from __future__ import annotations

import os
import re
from collections.abc import Mapping
from pathlib import Path

import pytest

from tests.servers import ROOT, ServerProcess, free_port, in_ci

SITE = ROOT / "deploy" / "nginx" / "ajedrez.conf"
NGINX = Path(os.environ.get("AJEDREZ_NGINX", "/usr/sbin/nginx"))

MAIN = """\
daemon off;
worker_processes 1;
pid {dir}/nginx.pid;
error_log {dir}/error.log info;
{user}
events {{ worker_connections 256; }}
http {{
    client_body_temp_path {dir}/body;
    proxy_temp_path {dir}/proxy;
    fastcgi_temp_path {dir}/fastcgi;
    uwsgi_temp_path {dir}/uwsgi;
    scgi_temp_path {dir}/scgi;
    log_format upstreams '$request $status $upstream_addr';
    access_log {dir}/access.log upstreams;
    # Which Daphne process answered, for the tests to see both used; the site's
    # location inherits it (it sets no headers of its own).
    add_header X-Upstream $upstream_addr always;
    include {dir}/ajedrez.conf;
}}
"""


def require_nginx(nginx: Path, env: Mapping[str, str]) -> None:
    """Skip, with the reason, when nginx is missing; in CI fail instead."""
    if nginx.exists():
        return
    reason = f"{nginx} is not installed: the reverse-proxy tests need Debian's nginx"
    if in_ci(env):
        pytest.fail(f"{reason}, and CI is set: install it (apt-get install -y nginx-light)",
                    pytrace=False)
    pytest.skip(reason)


def render_site(text: str, listen_port: int, upstream_ports: list[int]) -> str:
    """The site file with nginx listening on ``listen_port`` and one upstream server per
    port in ``upstream_ports``, in place of the file's example lines."""
    listen = re.compile(r"^(\s*)listen 80;$", re.M)
    servers = re.compile(r"^(\s*)server 127\.0\.0\.1:\d+;\n", re.M)
    assert len(listen.findall(text)) == 1, "the site should listen on port 80 once"
    indent = servers.search(text)
    assert indent, "the site's upstream should list its Daphne processes"
    text = listen.sub(rf"\g<1>listen 127.0.0.1:{listen_port};", text)
    text = servers.sub("", text, count=0)
    lines = "".join(f"{indent.group(1)}server 127.0.0.1:{port};\n" for port in upstream_ports)
    return text.replace("    keepalive", lines + "    keepalive", 1)


class NginxProcess(ServerProcess):
    """nginx in front of the Daphne processes on ``upstream_ports``."""

    name = "nginx"

    def __init__(self, directory: Path, upstream_ports: list[int]) -> None:
        self.directory = directory
        directory.mkdir(parents=True, exist_ok=True)
        port = free_port()
        site = render_site(SITE.read_text(), port, upstream_ports)
        (directory / "ajedrez.conf").write_text(site)
        # Started as root, nginx would hand its workers to "nobody", who cannot write to
        # this test's directory: keep them as the user who started it.
        user = "user root;" if os.geteuid() == 0 else ""
        (directory / "nginx.conf").write_text(MAIN.format(dir=directory, user=user))
        super().__init__(
            [str(NGINX), "-p", str(directory), "-c", str(directory / "nginx.conf"),
             "-e", str(directory / "error.log")],
            port, dict(os.environ), directory / "output.log",
        )

    def log(self) -> str:
        path = self.directory / "error.log"
        return path.read_text(errors="replace") if path.exists() else super().log()
