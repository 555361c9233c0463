// Run once by compose's MongoDB, when it starts on an empty volume (the image runs
// /docker-entrypoint-initdb.d/ scripts with mongosh, before access control is on):
// one user per service, with readWrite on its own database only, so that a service's
// credentials reach nothing of another's. Names and passwords come from the container's
// environment (docker-compose.yml); a missing password stops the initialisation.
const services = [
  { user: 'billing', db: process.env.BILLING_MONGO_DB, password: process.env.MONGO_BILLING_PASSWORD },
  { user: 'catalogue', db: process.env.CATALOGUE_MONGO_DB, password: process.env.MONGO_CATALOGUE_PASSWORD },
  { user: 'sessions', db: process.env.SESSIONS_MONGO_DB, password: process.env.MONGO_SESSIONS_PASSWORD },
];
for (const { user, db: name, password } of services) {
  if (!name || !password) throw new Error(`the database name or password of ${user} is not set`);
  db.getSiblingDB(name).createUser({ user, pwd: password, roles: [{ role: 'readWrite', db: name }] });
  print(`created user ${user} with readWrite on ${name}`);
}
