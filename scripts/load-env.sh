# Sourced by start.sh. `load_env_file FILE` exports the settings of FILE that the shell does not
# set, so that a variable set in the shell wins (`PORT=3411 npm start` over a PORT in .env). Node's
# own .env parser reads the file, the one the CLI's loadEnvFile uses, so both read a file alike;
# names a shell cannot hold are left out.
load_env_file() {
  local file=$1 setting
  [ -f "$file" ] || return 0
  while IFS= read -r -d '' setting; do export "$setting"; done < <(
    node -e '
      const settings = require("node:util").parseEnv(require("node:fs").readFileSync(process.argv[1], "utf8"));
      for (const [name, value] of Object.entries(settings)) {
        if (/^[A-Za-z_][A-Za-z0-9_]*$/.test(name) && !(name in process.env)) process.stdout.write(`${name}=${value}\0`);
      }
    ' "$file"
  )
}
