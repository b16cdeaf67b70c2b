// As examples/petshop/models/Tag.yaml.
module.exports = {
  attributes: {
    label: { type: 'string', required: true, unique: true },
    pets: { collection: 'pet', via: 'tags' },
  },
};
