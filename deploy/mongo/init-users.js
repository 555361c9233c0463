// Run once by compose's mongo-1, when it starts on an empty volume (the image runs
// /docker-entrypoint-initdb.d/ scripts with mongosh, before access control is on):
// one user per service, with readWrite on its own database only, so that a service's
// credentials reach nothing of another's. Names come from the container's environment,
// passwords from the files of its secrets (docker-compose.yml); a missing password stops
// the initialisation.
const passwordOf = (variable) => {
  const file = process.env[`${variable}_FILE`];
  return file ? fs.readFileSync(file, 'utf8').trim() : process.env[variable];
};
const services = [
  { user: 'billing', db: process.env.BILLING_MONGO_DB, password: passwordOf('MONGO_BILLING_PASSWORD') },
  { user: 'catalogue', db: process.env.CATALOGUE_MONGO_DB, password: passwordOf('MONGO_CATALOGUE_PASSWORD') },
  { user: 'sessions', db: process.env.SESSIONS_MONGO_DB, password: passwordOf('MONGO_SESSIONS_PASSWORD') },
];
for (const { user, db: name, password } of services) {
  if (!name || !password) throw new Error(`the database name or password of ${user} is not set`);
  db.getSiblingDB(name).createUser({ user, pwd: password, roles: [{ role: 'readWrite', db: name }] });
  print(`created user ${user} with readWrite on ${name}`);
}
