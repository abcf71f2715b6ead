#!/usr/bin/env python3
"""Renders peers/render.jsonnet with gojsonnet for each vars file: OUT/<stem>/{.env,docker-compose.yml}.

Usage: jsonnet_render.py OUT VARS.json...  (one process for any number of profiles)
"""
import json
import pathlib
import sys

import _gojsonnet

TEMPLATE = str(pathlib.Path(__file__).with_name("render.jsonnet"))
out = pathlib.Path(sys.argv[1])
for path in sys.argv[2:]:
    text = pathlib.Path(path).read_text()
    files = json.loads(_gojsonnet.evaluate_file(TEMPLATE, tla_codes={"vars": text}))
    folder = out / json.loads(text)["stem"]
    folder.mkdir(parents=True, exist_ok=True)
    for name, body in files.items():
        (folder / name).write_text(body)
