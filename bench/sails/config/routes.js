// As examples/petshop/config/routes.yaml.
module.exports.routes = {
  'GET /owners': 'user/find',
};
