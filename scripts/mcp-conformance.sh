#!/usr/bin/env bash
# The official MCP conformance scenarios (@modelcontextprotocol/conformance) that apply to
# fairdice's /mcp: those needing no test tools, prompts, sessions or capabilities fairdice does
# not declare (docs/mcp.md lists them and why the others do not apply). The suite needs Node 22
# or later, so it runs on the registry's node@24 package whatever Node serves fairdice.
# Starts the built server (dist/server.js) on a free loopback port and stops it at the end.
set -euo pipefail
cd "$(dirname "$0")/.."

CONFORMANCE='@modelcontextprotocol/conformance@0.1.16'
SCENARIOS=(server-initialize ping tools-list resources-list dns-rebinding-protection)

[ -f dist/server.js ] || npm run --silent build
port=$(node -e "const s=require('node:net').createServer().listen(0,'127.0.0.1',()=>{console.log(s.address().port);s.close()})")
PORT=$port HOST=127.0.0.1 RATE_LIMIT_MAX=100000 THROWS_PER_SECOND=1000000000 LOG_LEVEL=warn node dist/server.js &
server=$!
trap 'kill "$server" 2>/dev/null || true' EXIT

for _ in $(seq 1 100); do
  if node -e "fetch('http://127.0.0.1:$port/v1/health').then((r) => process.exit(r.ok ? 0 : 1), () => process.exit(1))"; then
    break
  fi
  sleep 0.1
done

passed=0
failed=0
for scenario in "${SCENARIOS[@]}"; do
  if timeout 300 npx -y -p node@24 -p "$CONFORMANCE" -- conformance server \
    --url "http://127.0.0.1:$port/mcp" --scenario "$scenario"; then
    passed=$((passed + 1))
  else
    failed=$((failed + 1))
    echo "mcp conformance: scenario $scenario FAILED"
  fi
done
echo "mcp conformance: ${passed} of ${#SCENARIOS[@]} scenarios passed"
[ "$failed" -eq 0 ]
