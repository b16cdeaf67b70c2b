// As examples/petshop/config/models.yaml (plus schema: true, which Skiff defaults to), except migrate: "drop", so every lift starts from
// empty tables (the benchmark seeds its own rows).
module.exports.models = {
  datastore: 'default',
  migrate: 'drop',
  // Skiff's models default to schema: true (issue 2); Sails' new-app template sets it too.
  schema: true,
  cascadeOnDestroy: true,
  attributes: {
    id: { type: 'number', autoIncrement: true },
    createdAt: { type: 'number', autoCreatedAt: true },
    updatedAt: { type: 'number', autoUpdatedAt: true },
  },
};
