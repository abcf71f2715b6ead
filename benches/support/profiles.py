#!/usr/bin/env python3
"""Helpers of benches/compare.sh.

generate EXAMPLES OUT COUNT   write COUNT profiles varied from the examples (tenant names, hosts,
                              client ids, ports, replicas, wait times, an [env] TENANT) into OUT
vars RENDERED VARS            read the docker-compose.yml svcgen rendered for each profile
                              (RENDERED/<stem>/) and write the same variables as JSON
                              (VARS/<stem>.json: stem, service, image, env [{name, value}]) for the peers
pkl VARS TEMPLATE OUT         write one Pkl module per vars file, amending TEMPLATE
pad DIR BYTES                 grow every profile of DIR to BYTES with comment lines (batch memory)
"""
import json
import pathlib
import re
import sys


def generate(examples, out, count):
    sources = sorted(pathlib.Path(examples).glob("*.toml"))
    out = pathlib.Path(out)
    out.mkdir(parents=True, exist_ok=True)
    for i in range(count):
        text = sources[i % len(sources)].read_text()
        t = f"t{i:04d}"
        text = re.sub(r"\.example\.org", f".{t}.example.org", text)
        text = re.sub(r"\.identity\.example", f".{t}.identity.example", text)
        text = re.sub(r'client_id = "(\d+)\.[a-z0-9]+"', rf'client_id = "\1.{t}"', text)
        text = re.sub(r'(?m)^name = "(admin-ui[a-z-]*)"', rf'name = "\1-{t}"', text)
        text = re.sub(r"port = 8500", f"port = {8500 + i % 100}", text)
        text = re.sub(r"port = 5432", f"port = {5432 + i % 50}", text)
        text = re.sub(r"replicas = 2", f"replicas = {1 + i % 3}", text)
        text = re.sub(r"max_time = 600", f"max_time = {300 + i % 600}", text)
        if "\n[env]\n" in text:
            text = text.replace("\n[env]\n", f'\n[env]\nTENANT = "{t}"\n')
        else:
            text += f'\n[env]\nTENANT = "{t}"\nREGION = "region-{i % 7}"\n'
        (out / f"p-{i:04d}.toml").write_text(text)


def pad(folder, size):
    for p in sorted(pathlib.Path(folder).glob("*.toml")):
        text = p.read_text()
        lines = []
        n = 0
        while len(text) + sum(map(len, lines)) < size:
            lines.append(f"# padding {n:06d} " + "x" * 60 + "\n")
            n += 1
        p.write_text("".join(lines) + text)


ENV_LINE = re.compile(r'^      ("[A-Za-z0-9_]+"): (".*")$')


def to_vars(rendered, out):
    out = pathlib.Path(out)
    out.mkdir(parents=True, exist_ok=True)
    for folder in sorted(pathlib.Path(rendered).iterdir()):
        lines = (folder / "docker-compose.yml").read_text().splitlines()
        service = next(json.loads(l.strip().rstrip(":")) for l in lines if l.startswith('  "'))
        image = next(json.loads(l.split(": ", 1)[1]) for l in lines if l.startswith("    image: "))
        env = []
        for line in lines:
            m = ENV_LINE.match(line)
            if m:
                env.append({"name": json.loads(m.group(1)), "value": json.loads(m.group(2))})
        data = {"stem": folder.name, "service": service, "image": image, "env": env}
        (out / f"{folder.name}.json").write_text(json.dumps(data, indent=1))


def pkl_modules(vars_dir, template, out):
    out = pathlib.Path(out)
    out.mkdir(parents=True, exist_ok=True)
    template = pathlib.Path(template).resolve()
    for path in sorted(pathlib.Path(vars_dir).glob("*.json")):
        module = f'amends "file://{template}"\n\nvarsFile = "{path.resolve()}"\n'
        (out / f"{path.stem}.pkl").write_text(module)


if __name__ == "__main__":
    command, *args = sys.argv[1:]
    if command == "generate":
        generate(args[0], args[1], int(args[2]))
    elif command == "vars":
        to_vars(*args)
    elif command == "pkl":
        pkl_modules(*args)
    elif command == "pad":
        pad(args[0], int(args[1]))
    else:
        sys.exit(__doc__)
