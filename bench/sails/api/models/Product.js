// As examples/petshop/models/Product.yaml: a plain model without associations.
module.exports = {
  attributes: {
    name: { type: 'string', required: true },
    sku: { type: 'string', unique: true, required: true },
    price: { type: 'number', min: 0 },
    stock: { type: 'number', defaultsTo: 0 },
    tags: { type: 'json' },
  },
};
