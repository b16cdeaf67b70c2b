// As examples/petshop/config/blueprints.yaml: the REST routes, and the shortcut routes
// (on in development, as in Skiff).
module.exports.blueprints = {
  rest: true,
  shortcuts: true,
  actions: false,
};
