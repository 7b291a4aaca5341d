"""Validates a JUnit report against tests/e2e/junit.xsd and prints what a
CI reader takes from it: per testcase, its name, and for a failure its
message and text. Exits 1 when the document does not validate.

Usage: junit_check.py REPORT.xml
"""
import os
import sys
import xml.etree.ElementTree as ET

import xmlschema

schema = xmlschema.XMLSchema(os.path.join(os.path.dirname(__file__), "junit.xsd"))
path = sys.argv[1]
errors = list(schema.iter_errors(path))
if errors:
    for e in errors:
        print(f"INVALID: {e.reason} at {e.path}")
    sys.exit(1)
root = ET.parse(path).getroot()
for suite in root.iter("testsuite"):
    print(f"suite {suite.get('name')}: tests={suite.get('tests')} failures={suite.get('failures')}")
    for case in suite.iter("testcase"):
        failure = case.find("failure")
        if failure is None:
            print(f"case {case.get('name')}: passed")
        else:
            print(f"case {case.get('name')}: failure type={failure.get('type')} message={failure.get('message')!r}")
            print("text:", failure.text.replace("\n", " | "))
print("VALID")
